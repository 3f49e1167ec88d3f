import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  compareSeverityDescending,
  mergeAffectedAssets,
  resolveReportStyle,
  type ReportDocument,
  type ReportDocumentFinding,
} from '@service/report-model';
import { detectFormat, findingOfScanResult, parseScan } from '@service/scanners';
import { renderReportDocx, renderTemplateDocx } from './index.ts';
import { exampleTemplateParts } from './template/example-template.ts';
import { SAMPLE_REPORT } from './template/sample-report.ts';
import { convertDocxToPdfText, officeAvailable, pdfPages } from './testing/convert-to-pdf.ts';
import { writeZip } from './zip-archive.ts';

/**
 * A report of real scans reads as a client document: the four Burp exports of the shared fixtures
 * (29 findings, 449 affected assets, 1.26 million characters of HTTP evidence) imported into one
 * report, rendered in our layout and in the example template with the default evidence mode
 * (excerpts), converted by LibreOffice in one run. Before excerpts, our layout printed the whole
 * evidence: 347 pages. Budget: at most PAGE_BUDGET pages each (measured: 63 in our layout, 71 in
 * the example template, which also repeats the asset table layout of every finding).
 */
const PAGE_BUDGET = 90;

const BURP_FIXTURES = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../shared/fixtures/scans/burp',
);

/** Every Burp fixture imported into one report: a rule found in several files is one finding with all its assets. */
function burpReport(): ReportDocument {
  const byRule = new Map<string, ReportDocumentFinding>();
  for (const name of readdirSync(BURP_FIXTURES).sort()) {
    const bytes = readFileSync(path.join(BURP_FIXTURES, name));
    for (const result of parseScan(bytes, { format: detectFormat(bytes)! }).findings) {
      const f = findingOfScanResult(result);
      const key = `${result.ruleId}|${f.title}`;
      const seen = byRule.get(key);
      if (seen) seen.affectedAssets = mergeAffectedAssets(seen.affectedAssets, f.affectedAssets).assets;
      else byRule.set(key, { ...f, evidence: [] });
    }
  }
  const findings = [...byRule.values()].sort(
    (a, b) => compareSeverityDescending(a.severity, b.severity) || a.title.localeCompare(b.title),
  );
  return { ...structuredClone(SAMPLE_REPORT), title: 'Web application test', tabs: [], links: [], findings };
}

describe.skipIf(!officeAvailable() || !existsSync(BURP_FIXTURES))(
  'a report of the Burp fixtures as PDF (skipped: soffice, pdftotext or the shared fixtures are missing)',
  () => {
    it(`stays under ${PAGE_BUDGET} pages with evidence excerpts, in our layout and the example template`, {
      timeout: 600_000,
    }, async () => {
      const report = burpReport();
      expect(report.findings).toHaveLength(29);
      const evidenceChars = report.findings.reduce(
        (n, f) => n + f.affectedAssets.reduce((m, a) => m + (a.evidence?.length ?? 0), 0),
        0,
      );
      expect(evidenceChars).toBeGreaterThan(1_000_000);
      const options = {
        style: resolveReportStyle(null),
        loadImage: async () => null,
        now: new Date('2024-03-10T00:00:00Z'),
      };
      expect(options.style.evidenceMode).toBe('excerpt');
      const pdf = await convertDocxToPdfText({
        layout: await renderReportDocx(report, options),
        template: await renderTemplateDocx(writeZip(exampleTemplateParts()), report, options),
      });
      for (const kind of ['layout', 'template'] as const) {
        const text = pdf[kind].text;
        const pages = pdfPages(text).filter((p) => p.trim() !== '').length;
        console.log(`${kind}: ${pages} pages (budget ${PAGE_BUDGET})`);
        expect(pages, kind).toBeLessThanOrEqual(PAGE_BUDGET);
        // The excerpts are there: the echoed payload of the reflected XSS, what was left out said.
        expect(text, kind).toContain('<your name here>sk11i<script>alert(1)</script>b4uml commented</title>');
        expect(text, kind).toMatch(/\[… \d+ lines left out\]/);
        expect(text, kind).toContain('Evidence per asset');
        // No internal pointers and no page dumps.
        expect(text, kind).not.toMatch(/\bexports?\b|Markdown|\bCSV\b/);
        expect(text, kind).not.toContain('We bodge it, so you dont have to!');
      }
    });
  },
);
