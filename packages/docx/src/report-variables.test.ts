import { describe, expect, it } from 'vitest';
import { emptyDocumentTab, resolveReportStyle, type ReportDocument } from '@service/report-model';
import { fillReportVariables, renderReportDocx, renderTemplateDocx } from './index.ts';
import { para, templateWithBody } from './testing/template-fixtures.ts';
import { SAMPLE_REPORT } from './template/sample-report.ts';
import { readZip } from './zip-archive.ts';

const now = new Date('2024-06-01T00:00:00Z');
const options = { style: resolveReportStyle(null), loadImage: async () => null, now };
const documentText = (docx: Uint8Array) =>
  new TextDecoder()
    .decode(readZip(docx, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 }).get('word/document.xml')!)
    .replace(/<[^>]+>/g, ' ');

const NOTICE = [
  'Prepared for {{client}} by {{preparedBy}} ({{authors}}), {{testingPeriod}}, version {{version}} of {{reportDate}}.',
  '',
  '{{versionHistory}}',
  '',
  'Findings: {{findingCount}}, {{highCount}} high. Most severe:',
  '',
  '{{topFindings}}',
].join('\n');

const report = (changes: Partial<ReportDocument> = {}): ReportDocument => ({
  ...SAMPLE_REPORT,
  preparedBy: 'Example Security',
  authors: [{ name: 'Ann Author', role: 'Lead tester' }],
  versionHistory: [
    { version: '0.9', date: '2024-03-10', author: 'Ann Author', change: 'Draft' },
    { version: '1.0', date: '2024-03-12', author: 'Ann Author', change: 'Final report' },
  ],
  tabs: [{ ...emptyDocumentTab('Confidentiality notice'), content: NOTICE }],
  ...changes,
});

describe('report variables', () => {
  it('are filled from the report in its tabs, as our layout prints them, with the table of versions once', async () => {
    const text = documentText(await renderReportDocx(report(), options));
    expect(text).toContain(
      'Prepared for Sample Client Ltd. by Example Security (Ann Author (Lead tester)), March 4, 2024 – March 8, 2024, version 1.0 of March 12, 2024.',
    );
    expect(text).toContain('Findings: 2, 1 high.');
    expect(text).toMatch(/SQL injection\s+\(High\)/);
    expect(text).not.toContain('{{');
    // The tab shows the version history, so "Document control" does not repeat it.
    expect(text.match(/Final report/g)).toHaveLength(1);
  });

  it('are filled the same way in a Word template', async () => {
    const template = templateWithBody(para('{#tabs}') + para('{@content}') + para('{/tabs}'));
    const text = documentText(await renderTemplateDocx(template, report(), options));
    expect(text).toContain('Prepared for Sample Client Ltd. by Example Security');
    expect(text).toContain('Final report');
    expect(text).not.toContain('{{');
  });

  it('without a value stay as written and are named, with what gives them one', () => {
    const { problems } = fillReportVariables(
      report({
        authors: [],
        versionHistory: [],
        tabs: [{ ...emptyDocumentTab('Notice'), content: `${NOTICE} {{clinet}} {{originalReport}}` }],
      }),
      now,
    );
    expect(problems.map((p) => [p.variable, p.problem])).toEqual([
      ['authors', 'no-value'],
      ['version', 'no-value'],
      ['versionHistory', 'no-value'],
      ['originalReport', 'no-value'],
      ['clinet', 'unknown'],
    ]);
    expect(problems[0]!.message).toBe('tab "Notice": {{authors}} has no value: set the report\'s `authors`');
    expect(problems[3]!.message).toContain('it needs a retest');
  });

  it('are filled in German in a German report', async () => {
    const text = documentText(await renderReportDocx(report({ language: 'de' }), options));
    expect(text).toContain('4. März 2024 – 8. März 2024, version 1.0 of 12. März 2024');
    expect(text).toMatch(/SQL injection\s+\(Hoch\)/);
    expect(text).toMatch(/Version\s+Datum\s+Autor\s+Änderung/);
  });
});
