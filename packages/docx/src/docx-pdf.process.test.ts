import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyDocumentTab, resolveReportStyle, type ReportDocument } from '@service/report-model';
import { budgetMs, laneSize } from '@service/test-lanes';
import { renderReportDocx, renderTemplateDocx } from './index.ts';
import { convertDocxToPdfText, officeAvailable, pdfPages } from './testing/convert-to-pdf.ts';
import { readZip } from './zip-archive.ts';
import { SAMPLE_REPORT } from './template/sample-report.ts';

/**
 * DOCX exports opened by a real office suite: LibreOffice converts them to PDF (with the PDF
 * export's profile and macro: every index and field updated) without errors, the PDF's text holds
 * the report's content, the contents page lists each section with the page it is on, and a German
 * report is German throughout. One soffice run converts all six documents. The big report has a
 * megabyte description and 10,000 assets in CI, a tenth of that elsewhere.
 */
const DESCRIPTION_CHARS = laneSize(1_000_000, 100_000);
const ASSETS = laneSize(10_000, 1_000);
/** LibreOffice's start and the small documents, and each 100,000 characters or 1,000 assets. */
const BUDGET = budgetMs(2 + DESCRIPTION_CHARS / 100_000 + ASSETS / 1_000, 30_000);

const MARKUP = 'Literal </w:t><w:p> & ]]> markup';
const ARABIC = 'مرحبا بالعالم';
const HEBREW = 'שלום עולם';
const LONG_PARAGRAPH = 'This long description paragraph repeats to reach the size of Markdown text in one finding. ';
const longDescription = () => {
  const parts: string[] = ['Start of the long description.'];
  for (let n = 0, size = 0; size < DESCRIPTION_CHARS; n++) {
    const p = `${n}. ${LONG_PARAGRAPH.repeat(6)}`;
    parts.push(p);
    size += p.length + 2;
  }
  parts.push('End of the long description.');
  return parts.join('\n\n');
};

/** The host of asset `i` of the big finding. */
const assetHost = (i: number) => `10.${Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}`;

function bigReport(): ReportDocument {
  const base = structuredClone(SAMPLE_REPORT);
  base.title = 'PDF check report';
  base.tabs.push({ ...emptyDocumentTab('Notes in other scripts'), content: `${ARABIC}\n\n${HEBREW}\n\n${MARKUP}` });
  base.findings[0]!.description += `\n\n${MARKUP}`;
  base.findings.push({
    ...structuredClone(base.findings[1]!),
    title: 'Finding with many assets',
    affectedAssets: Array.from({ length: ASSETS }, (_, i) => ({
      host: assetHost(i),
      port: 443,
      protocol: 'tcp',
      url: `https://asset-${i}.example/`,
    })),
  });
  base.findings.push({
    ...structuredClone(base.findings[1]!),
    title: 'Finding with a long description',
    description: longDescription(),
  });
  return base;
}

const german = (): ReportDocument => ({
  ...structuredClone(SAMPLE_REPORT),
  title: 'Deutscher Bericht',
  language: 'de-DE',
});

/**
 * The page each contents entry names, and the page the heading is really on (the first page after
 * the contents whose text starts with it, below the running header).
 */
function contentsPages(text: string, headings: string[]): Array<{ heading: string; listed: number; actual: number }> {
  const pages = pdfPages(text);
  const contents = pages.findIndex((p) => /^(Contents|Inhalt)$/m.test(p));
  expect(contents, 'a contents page').toBeGreaterThanOrEqual(0);
  return headings.map((heading) => {
    const escaped = heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const listed = new RegExp(`^${escaped}[ .\u2026]*(\\d+)\\s*$`, 'm').exec(pages[contents]!)?.[1];
    const actual = pages.findIndex((p, i) => i > contents && new RegExp(`^${escaped}\\s*$`, 'm').test(p));
    return { heading, listed: Number(listed), actual: actual + 1 };
  });
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
    it('our layout and the example template convert, and the PDFs hold the report', { timeout: BUDGET }, async () => {
      const template = readFileSync(
        new URL('../../../library/report-styles/word-template-example.docx', import.meta.url),
      );
      const report = bigReport();
      const docs = {
        layout: await renderReportDocx(report, options),
        template: await renderTemplateDocx(template, report, options),
        layoutEmpty: await renderReportDocx(noFindings(), options),
        templateEmpty: await renderTemplateDocx(template, noFindings(), options),
        layoutGerman: await renderReportDocx(german(), options),
        templateGerman: await renderTemplateDocx(template, german(), options),
      };
      const description = new TextDecoder().decode(
        readZip(docs.layout, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 }).get('word/document.xml')!,
      );
      expect(description).toContain('End of the long description.');
      const pdf = await convertDocxToPdfText(docs);
      for (const kind of ['layout', 'template'] as const) {
        const text = plain(pdf[kind].text);
        expect(text).toContain('PDF check report');
        expect(text).toContain('SQL injection');
        expect(text).toContain('Finding with many assets');
        expect(text).toContain(assetHost(ASSETS - 1)); // the last of the assets
        expect(text).toContain('CVE-2024-0001');
        expect(text).toContain('app.example.com');
        expect(text).toContain('Notes in other scripts');
        expect(text).toContain(MARKUP);
        expect(text).toContain('End of the long description.');
        for (const word of [...ARABIC.split(' '), ...HEBREW.split(' ')]) expect(text).toContain(word);
      }
      expect(plain(pdf.layoutEmpty.text)).toContain('No findings were identified');
      expect(plain(pdf.templateEmpty.text)).toContain('No findings were identified');

      // The contents page gives each section's real page, in our layout and in the template.
      for (const kind of ['layout', 'template'] as const) {
        const entries = contentsPages(plain(pdf[kind].text), [
          'Summary',
          'Findings overview',
          '1. SQL injection',
          'Links',
        ]);
        for (const e of entries) expect(e.listed, `${kind}: ${e.heading}`).toBe(e.actual);
      }
      for (const kind of ['layoutGerman', 'templateGerman'] as const) {
        const text = plain(pdf[kind].text);
        const entries = contentsPages(text, ['Zusammenfassung', 'Befunde im Überblick', '1. SQL injection', 'Links']);
        for (const e of entries) expect(e.listed, `${kind}: ${e.heading}`).toBe(e.actual);
        for (const word of ['Inhalt', 'Kunde', 'Prüfzeitraum', 'Schweregrad', 'Betroffene Systeme', 'Beschreibung'])
          expect(text, `${kind}: ${word}`).toContain(word);
        for (const word of ['Hoch', 'Niedrig', 'Offen', 'Behoben', 'Entwurf', '4. März 2024', 'Seite 2 von'])
          expect(text, `${kind}: ${word}`).toContain(word);
        for (const english of ['Contents', 'Severity', 'Affected assets', 'Description', 'Page 2 of'])
          expect(text, `${kind}: ${english}`).not.toContain(english);
      }
    });
  },
);
