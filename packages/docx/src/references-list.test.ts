// A finding's references are a list, one item each, in our layout and in the shipped example
// Word template (issue 28: "…44228https://nvd…" was one bullet).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveReportStyle } from '@service/report-model';
import { renderReportDocx, renderTemplateDocx } from './index.ts';
import { SAMPLE_REPORT } from './template/sample-report.ts';
import { readZip } from './zip-archive.ts';

const REFERENCES = [
  'https://logging.apache.org/log4j/2.x/security.html',
  'https://nvd.nist.gov/vuln/detail/CVE-2021-44228',
  'https://nvd.nist.gov/vuln/detail/CVE-2021-45046',
];
const report = {
  ...SAMPLE_REPORT,
  findings: SAMPLE_REPORT.findings.map((f, i) => (i === 0 ? { ...f, references: REFERENCES } : f)),
};
const options = { style: resolveReportStyle(null), loadImage: async () => null, now: new Date('2024-03-10T00:00:00Z') };
const paragraphs = (docx: Uint8Array) =>
  new TextDecoder()
    .decode(readZip(docx, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 }).get('word/document.xml')!)
    .split('</w:p>')
    .map((p) => [...p.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]).join(''));

function expectOneParagraphEach(docx: Uint8Array): void {
  const texts = paragraphs(docx);
  for (const reference of REFERENCES)
    expect(
      texts.filter((t) => t === reference),
      reference,
    ).toHaveLength(1);
  expect(texts.some((t) => t.includes(`${REFERENCES[0]}${REFERENCES[1]}`))).toBe(false);
}

describe('references in DOCX', () => {
  it('are one list item each in our layout', async () => {
    expectOneParagraphEach(await renderReportDocx(report, options));
  });

  it('are one bullet each in the example Word template', async () => {
    const template = readFileSync(
      new URL('../../../library/report-styles/word-template-example.docx', import.meta.url),
    );
    expectOneParagraphEach(await renderTemplateDocx(template, report, options));
  });
});
