import { describe, expect, it } from 'vitest';
import { reportTextProblems, unfilledVariables } from './report-text-checks.ts';

describe('text for report tabs', () => {
  it('may not hold bracketed placeholders; links, images, task boxes, footnotes and code may', () => {
    const text = [
      'Prepared for [Client] between [start date] and [end date].',
      'See [OWASP](https://owasp.org), ![a diagram](evidence:sha256:abc), [the guide][guide], [^1].',
      '- [ ] open',
      '- [x] done',
      '`[Client]` in code, and escaped \\[Client\\].',
      '```',
      '[Company]',
      '```',
      '[guide]: https://example.com',
    ].join('\n');
    expect(
      reportTextProblems(text, { retest: false }).map((p) => [p.line, p.column, p.message.split(' is ')[0]]),
    ).toEqual([
      [1, 14, '`[Client]`'],
      [1, 31, '`[start date]`'],
      [1, 48, '`[end date]`'],
    ]);
  });

  it('may use report variables, but no unknown name, and retest variables only in a retest text', () => {
    const problems = reportTextProblems('{{client}} {{clinet}} {{originalReport}}', { retest: false });
    expect(problems.map((p) => [p.column, p.message.slice(0, 40)])).toEqual([
      [12, '{{clinet}} is not a report variable (kno'],
      [23, '{{originalReport}} has a value only in a'],
    ]);
    expect(reportTextProblems('{{client}} {{originalReport}}', { retest: true })).toEqual([]);
  });

  it('of a report template have a value once a report sets its fields: a retest variable only in a retest', () => {
    const tabs = [
      { title: 'Notice', content: 'For {{client}}, {{authors}}; {{versionHistory}}', placement: 'before' as const },
    ];
    expect(unfilledVariables(tabs, false)).toEqual([]);
    const retest = [
      {
        title: 'Summary',
        content: 'Retest of "{{originalReport}}" ({{retestStartDate}})',
        placement: 'before' as const,
      },
    ];
    expect(unfilledVariables(retest, true)).toEqual([]);
    expect(unfilledVariables(retest, false)).toEqual([
      'tab "Summary": {{originalReport}} has no value: it needs a retest of a report you can see',
      'tab "Summary": {{retestStartDate}} has no value: it needs a retest\'s results (`retestedAt`)',
    ]);
  });
});
