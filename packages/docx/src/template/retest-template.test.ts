import { describe, expect, it } from 'vitest';
import { resolveReportStyle } from '@service/report-model';
import { describeProblem, lintDocxTemplate, renderTemplateDocx } from '../index.ts';
import { para, templateWithBody } from '../testing/template-fixtures.ts';
import { readZip, writeZip } from '../zip-archive.ts';
import { exampleTemplateParts } from './example-template.ts';
import { SAMPLE_REPORT } from './sample-report.ts';
import { SAMPLE_RETEST } from './sample-retest.ts';

const PIXEL = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==',
    'base64',
  ),
);
const options = {
  style: resolveReportStyle(null),
  loadImage: async () => PIXEL,
  now: new Date('2024-04-05T00:00:00Z'),
};
const documentXml = (docx: Uint8Array) =>
  new TextDecoder().decode(
    readZip(docx, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 }).get('word/document.xml')!,
  );
/** The visible text, one line per paragraph. */
const plainText = (docx: Uint8Array) =>
  documentXml(docx)
    .split('</w:p>')
    .map((p) => [...p.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]).join(''))
    .filter((p) => p !== '')
    .join('\n');

describe('retest tags', () => {
  it('fill the round, counts, statuses per finding and asset, notes, risk acceptance and retest evidence', async () => {
    const body = [
      para('{#isRetest}Round {retestRound} of {retestOf} (original: {originalReport}){/isRetest}'),
      para(
        '{resolvedCount}/{partiallyResolvedCount}/{unresolvedCount}/{newCount}/{notRetestedCount}, open {openCount}',
      ),
      para('{#retestStatuses}[{statusKey}={count} {color}]{/retestStatuses}'),
      para('{@retestChart}'),
      para('{#findings}'),
      para('{number}. {title}: {retestStatus} ({retestStatusKey}, {retestStatusColor}) on {retestDate}'),
      para('{#retestStatusSetByTester}by a person: {retestStatusNote}{/retestStatusSetByTester}'),
      para('{#riskAccepted}accepted: {riskAcceptedNote}{/riskAccepted}'),
      para('{@retestNotes}'),
      para('notes as text: {retestNotesText}'),
      para('{#retestAssets}[{location} {url} {status} {statusKey}]{/retestAssets}'),
      para('{#hasRetestEvidence}evidence:{/hasRetestEvidence}'),
      para('{#retestEvidence}'),
      para('{@image}'),
      para('{caption}'),
      para('{/retestEvidence}'),
      para('{/findings}'),
    ].join('');
    const template = templateWithBody(body);
    expect(lintDocxTemplate(template)).toMatchObject({ ok: true });
    const docx = await renderTemplateDocx(template, SAMPLE_RETEST, options);
    const text = plainText(docx);
    expect(text).toContain('Round 1 of Sample penetration test (original: Sample penetration test)');
    expect(text).toContain('1/1/0/1/0, open 2');
    expect(text).toContain('[resolved=1 2E7D32][partially_resolved=1 F9A825][unresolved=0 C62828][new=1 6A1B9A]');
    expect(text).toContain('1. SQL injection: Partially resolved (partially_resolved, F9A825) on April 2, 2024');
    expect(text).toContain('[app.example.com:443/tcp https://app.example.com/search Resolved resolved]');
    expect(text).toContain('[api.example.com:443/tcp  Unresolved unresolved]');
    expect(text).toContain('Retested with the original payloads.');
    expect(text).toContain('notes as text: Retested with the original payloads.');
    expect(text).toContain('by a person: Checked by hand: every header is set.');
    expect(text).toContain('accepted: The client accepts the remaining risk of the legacy host.');
    expect(text).toContain('evidence:\nStill injectable');
    expect(text).toContain('3. Outdated TLS configuration: New (new, 6A1B9A) on April 2, 2024');
    expect(documentXml(docx)).toContain(
      'descr="Resolved: 1, Partially resolved: 1, Unresolved: 0, New: 1, Not retested: 0"',
    );

    // The same template for an ordinary report: the retest parts are left out, nothing fails.
    const plain = plainText(await renderTemplateDocx(template, SAMPLE_REPORT, options));
    expect(plain).not.toMatch(/Round|accepted:|by a person|evidence:|Resolved/);
    expect(plain).toContain('1. SQL injection:  (, ) on');
  });

  it('colour by retest status, and speak German in a German retest', async () => {
    const body = [
      para('{#findings}'),
      para('{retestShadeParagraph}{title}: {retestStatus}'),
      para('{/findings}'),
      para('{label.retestStatus} {label.retestStatus.partially_resolved}'),
    ].join('');
    const docx = await renderTemplateDocx(templateWithBody(body), { ...SAMPLE_RETEST, language: 'de' }, options);
    expect(plainText(docx)).toContain('SQL injection: Teilweise behoben');
    expect(plainText(docx)).toContain('Status im Retest Teilweise behoben');
    // Each finding's paragraph in its retest status's colour: partly resolved, resolved, new.
    const fills = [...documentXml(docx).matchAll(/<w:shd [^>]*w:fill="([0-9A-F]{6})"/g)].map((m) => m[1]);
    expect(fills).toEqual(['F9A825', '2E7D32', '6A1B9A']);
  });

  it('are known to the linter: wrong kinds and scopes are reported with a hint', () => {
    const body = [
      para('{retestNotes}'), // a Markdown field used as text, outside its finding
      para('{#findings}{retestDat}{/findings}'), // a near miss
      para('{#findings}'),
      para('{retestNotes}'), // Markdown as plain text
      para('{retestAssets}'), // a list as text
      para('{/findings}'),
      para('{#retestAssets}{status}{/retestAssets}'), // a finding's list at the report level
    ].join('');
    const lint = lintDocxTemplate(templateWithBody(body));
    expect(lint.ok).toBe(false);
    const described = lint.errors.map((e) => describeProblem(e));
    expect(described.some((d) => /"retestDat".*did you mean \{retestDate\}/.test(d))).toBe(true);
    expect(described.some((d) => /"retestNotes" is Markdown .*\{@retestNotes\}.*\{retestNotesText\}/.test(d))).toBe(
      true,
    );
    expect(described.some((d) => /"retestAssets" is a list/.test(d))).toBe(true);
    expect(
      described.some((d) =>
        /"retestAssets" in the report scope.*\{#retestAssets\} exists, but inside another loop/.test(d),
      ),
    ).toBe(true);
  });

  it('are shown in the shipped example template', () => {
    const document = exampleTemplateParts().find(([n]) => n === 'word/document.xml')![1];
    for (const tag of ['{#isRetest}', '{@retestChart}', '{retestShadeCell}', '{#retestAssets}', '{@retestNotes}'])
      expect(document).toContain(tag);
    expect(lintDocxTemplate(writeZip(exampleTemplateParts()))).toEqual({ ok: true, errors: [], missingStyles: [] });
  });
});
