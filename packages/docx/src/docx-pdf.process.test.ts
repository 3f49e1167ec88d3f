import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveReportStyle, type ReportDocument } from '@service/report-model';
import { renderReportDocx, renderTemplateDocx } from './index.ts';
import { convertDocxToPdfText, officeAvailable } from './testing/convert-to-pdf.ts';
import { readZip } from './zip-archive.ts';
import { SAMPLE_REPORT } from './template/sample-report.ts';

/**
 * DOCX exports opened by a real office suite: LibreOffice converts them to PDF without errors, and
 * the PDF's text holds the report's content. One soffice run converts all four documents.
 */

const MARKUP = 'Literal </w:t><w:p> & ]]> markup';
const ARABIC = 'مرحبا بالعالم';
const HEBREW = 'שלום עולם';
const LONG_PARAGRAPH =
  'This long description paragraph repeats to reach one megabyte of Markdown text in one finding. ';
const longDescription = () => {
  const parts: string[] = ['Start of the long description.'];
  for (let n = 0, size = 0; size < 1_000_000; n++) {
    const p = `${n}. ${LONG_PARAGRAPH.repeat(6)}`;
    parts.push(p);
    size += p.length + 2;
  }
  parts.push('End of the long description.');
  return parts.join('\n\n');
};

function bigReport(): ReportDocument {
  const base = structuredClone(SAMPLE_REPORT);
  base.title = 'PDF check report';
  base.tabs.push({
    title: 'Notes in other scripts',
    content: `${ARABIC}\n\n${HEBREW}\n\n${MARKUP}`,
    placement: 'before',
    evidence: [],
  });
  base.findings[0]!.description += `\n\n${MARKUP}`;
  base.findings.push({
    ...structuredClone(base.findings[1]!),
    title: 'Finding with ten thousand assets',
    affectedAssets: Array.from({ length: 10_000 }, (_, i) => ({
      host: `10.${Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}`,
      port: 443,
      protocol: 'tcp',
      url: `https://asset-${i}.example/`,
    })),
  });
  base.findings.push({
    ...structuredClone(base.findings[1]!),
    title: 'Finding with a one megabyte description',
    description: longDescription(),
  });
  return base;
}

const noFindings = (): ReportDocument => ({
  ...structuredClone(SAMPLE_REPORT),
  title: 'Report without findings',
  findings: [],
});
const options = { style: resolveReportStyle(null), loadImage: async () => null, now: new Date('2024-03-10T00:00:00Z') };
// Why normalise: pdftotext writes Arabic in presentation forms and marks direction with controls.
const plain = (text: string) => text.normalize('NFKC').replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');

describe.skipIf(!officeAvailable())(
  'DOCX to PDF with LibreOffice (skipped: soffice or pdftotext is not installed)',
  () => {
    it('our layout and the example template convert, and the PDFs hold the report', { timeout: 600_000 }, async () => {
      const template = readFileSync(
        new URL('../../../library/report-styles/word-template-example.docx', import.meta.url),
      );
      const report = bigReport();
      const docs = {
        layout: await renderReportDocx(report, options),
        template: await renderTemplateDocx(template, report, options),
        layoutEmpty: await renderReportDocx(noFindings(), options),
        templateEmpty: await renderTemplateDocx(template, noFindings(), options),
      };
      const description = new TextDecoder().decode(
        readZip(docs.layout, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 }).get('word/document.xml')!,
      );
      expect(description).toContain('End of the long description.');
      const pdf = convertDocxToPdfText(docs);
      for (const kind of ['layout', 'template'] as const) {
        const text = plain(pdf[kind].text);
        expect(text).toContain('PDF check report');
        expect(text).toContain('SQL injection');
        expect(text).toContain('Finding with ten thousand assets');
        expect(text).toContain('10.0.39.15'); // the last of the 10,000 assets
        expect(text).toContain('CVE-2024-0001');
        expect(text).toContain('app.example.com');
        expect(text).toContain('Notes in other scripts');
        expect(text).toContain(MARKUP);
        expect(text).toContain('End of the long description.');
        for (const word of [...ARABIC.split(' '), ...HEBREW.split(' ')]) expect(text).toContain(word);
      }
      expect(plain(pdf.layoutEmpty.text)).toContain('No findings were identified');
      expect(plain(pdf.templateEmpty.text)).toContain('No findings were identified');
    });
  },
);
