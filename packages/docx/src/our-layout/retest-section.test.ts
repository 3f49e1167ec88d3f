import { describe, expect, it } from 'vitest';
import { resolveReportStyle } from '@service/report-model';
import { renderReportDocx } from '../index.ts';
import { SAMPLE_REPORT } from '../template/sample-report.ts';
import { SAMPLE_RETEST } from '../template/sample-retest.ts';
import { readZip } from '../zip-archive.ts';

const PIXEL = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==',
    'base64',
  ),
);
const parts = (docx: Uint8Array) => readZip(docx, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 });
const documentXml = (docx: Uint8Array) => new TextDecoder().decode(parts(docx).get('word/document.xml')!);
/** The document's visible text, paragraph by paragraph. */
const plainText = (xml: string) =>
  xml
    .split('</w:p>')
    .map((p) => [...p.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]).join(''))
    .map((p) =>
      p
        .replace(/&quot;/g, '"')
        .replace(/&gt;/g, '>')
        .replace(/&lt;/g, '<')
        .replace(/&amp;/g, '&'),
    )
    .filter((p) => p !== '')
    .join('\n');

const render = (doc: typeof SAMPLE_RETEST) =>
  renderReportDocx(doc, { style: resolveReportStyle({ name: 'x' }), loadImage: async () => PIXEL });

describe('a retest in our layout', () => {
  it('has a retest results section (chart, summary table) and a retest part in each finding', async () => {
    const docx = await render(SAMPLE_RETEST);
    const text = plainText(documentXml(docx));
    expect(text).toContain('Retest results');
    expect(text).toContain('Round 1 of the retest of "Sample penetration test"');
    // The summary table: finding, original severity, retest status, date.
    expect(text).toMatch(
      /Original severity\nRetest status\nRetest date\n1\nSQL injection\nHigh\nPartially resolved\nApril 2, 2024/,
    );
    expect(text).toMatch(/Missing security headers\nLow\nResolved\nApril 3, 2024/);
    expect(text).toMatch(/Outdated TLS configuration\nMedium\nNew\nApril 2, 2024/);
    // Per finding: notes, per-asset status, the re-scan evidence, who set the status, the risk acceptance.
    expect(text).toContain('Retested with the original payloads.');
    expect(text).toMatch(/Status per asset\nHost\nURL\nRetest status\n[\s\S]*api\.example\.com:443\/tcp\nUnresolved/);
    expect(text).toContain('-> 500 Internal Server Error (SQL syntax)');
    expect(text).toContain('Set by the tester: Checked by hand: every header is set.');
    expect(text).toContain('Risk accepted by the client: The client accepts the remaining risk of the legacy host.');
    expect(text).toContain('Still injectable'); // the retest image's caption
    const media = [...parts(docx).keys()].filter((n) => n.startsWith('word/media/'));
    // The retest chart, the severity chart, and the evidence images (one pixel each, the same bytes).
    expect(media.length).toBeGreaterThanOrEqual(3);
    expect(documentXml(docx)).toContain(
      'descr="Resolved: 1, Partially resolved: 1, Unresolved: 0, New: 1, Not retested: 0"',
    );
  });

  it('speaks German in a German retest, and an ordinary report has no retest part', async () => {
    const german = plainText(documentXml(await render({ ...SAMPLE_RETEST, language: 'de' })));
    expect(german).toContain('Ergebnisse des Retests');
    expect(german).toMatch(/Ursprünglicher Schweregrad\nStatus im Retest\nDatum des Retests/);
    expect(german).toContain('Teilweise behoben');
    expect(german).toContain('Risiko vom Kunden akzeptiert');
    const plain = plainText(documentXml(await render(SAMPLE_REPORT)));
    expect(plain).not.toContain('Retest');
  });
});
