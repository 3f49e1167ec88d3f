import { describe, expect, it } from 'vitest';
import {
  emptyDocumentTab,
  EVIDENCE_MODES,
  resolveReportStyle,
  type AffectedAsset,
  type EvidenceMode,
  type ReportDocument,
} from '@service/report-model';
import { EXCERPT_ASSET_LIMIT, planEvidence } from './evidence-plan.ts';
import { reportLocale } from './messages/report-locale.ts';
import { renderReportDocx, renderTemplateDocx } from './index.ts';
import { exampleTemplateParts } from './template/example-template.ts';
import { SAMPLE_REPORT } from './template/sample-report.ts';
import { para, templateWithBody } from './testing/template-fixtures.ts';
import { readZip, writeZip } from './zip-archive.ts';

/**
 * The style's evidence mode in our layout and in the example template: excerpts (default), the
 * whole evidence, excerpts with the whole evidence in an appendix, or nothing.
 */

/** A Burp-like exchange: a few headers that matter, a long page, one line echoing the payload. */
function exchange(n: number): string {
  const body = Array.from({ length: 300 }, (_, i) =>
    i === 200 ? `<p>You searched for: PAYLOAD-${n}</p>` : `<p>line ${i} of page ${n}</p>`,
  ).join('\r\n');
  return (
    `The payload PAYLOAD-${n} was echoed.\n\nRequest:\nGET /search?q=PAYLOAD-${n} HTTP/1.1\r\nHost: shop.example\r\n` +
    `User-Agent: x\r\n\r\n\nResponse:\nHTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\n\r\n${body}`
  );
}

const assets: AffectedAsset[] = [
  ...Array.from({ length: 5 }, (_, n) => ({
    host: 'shop.example',
    port: 443,
    protocol: 'tcp',
    url: `https://shop.example/search/${n}`,
    evidence: exchange(n),
  })),
  { host: 'written.example', evidence: exchange(9), excerpt: 'A tester wrote this excerpt.' },
  { host: 'short.example', evidence: 'TLSv1.0 enabled' },
];

function report(language = 'en'): ReportDocument {
  const base = structuredClone(SAMPLE_REPORT);
  return {
    ...base,
    language,
    tabs: [
      ...base.tabs,
      { ...emptyDocumentTab('Appendix A: Methodology'), content: 'How we tested.', placement: 'after' },
    ],
    findings: [
      { ...base.findings[0]!, title: 'Cross-site scripting (reflected)', affectedAssets: assets, evidence: [] },
      ...base.findings.slice(1).map((f) => ({ ...f, affectedAssets: [] })),
    ],
  };
}

const options = (mode: EvidenceMode) => ({
  style: resolveReportStyle({ name: 'Evidence', evidenceMode: mode }),
  loadImage: async () => null,
  now: new Date('2024-03-10T00:00:00Z'),
});

/** The document's text, paragraph by paragraph (runs joined), and its raw XML. */
function read(docx: Uint8Array): { text: string; xml: string } {
  const xml = new TextDecoder().decode(
    readZip(docx, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 }).get('word/document.xml')!,
  );
  const text = [...xml.matchAll(/<w:p[ >][\s\S]*?<\/w:p>/g)]
    .map((p) =>
      [...p[0].matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>|<w:br\/>/g)]
        .map((t) => (t[1] === undefined ? '\n' : t[1]))
        .join('')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&'),
    )
    .join('\n');
  return { text, xml };
}

const TEMPLATE = writeZip(exampleTemplateParts());
const render = {
  layout: (doc: ReportDocument, mode: EvidenceMode) => renderReportDocx(doc, options(mode)),
  template: (doc: ReportDocument, mode: EvidenceMode) => renderTemplateDocx(TEMPLATE, doc, options(mode)),
};

describe('the evidence plan', () => {
  it('shows excerpts of the first assets, the whole evidence in full, and numbers appendix entries', () => {
    const doc = report();
    const excerpt = planEvidence(doc.findings, 'excerpt').findings[0]!;
    expect(excerpt.assets.filter((a) => a.shown !== '')).toHaveLength(EXCERPT_ASSET_LIMIT);
    expect(excerpt.leftOut).toBe(assets.length - EXCERPT_ASSET_LIMIT);
    expect(excerpt.assets[0]!.shown).toBe(excerpt.assets[0]!.excerpt);
    expect(excerpt.assets[0]!.excerpt.length).toBeLessThan(1500);
    const full = planEvidence(doc.findings, 'full').findings[0]!;
    expect(full.assets.map((a) => a.shown)).toEqual(assets.map((a) => a.evidence));
    const appendix = planEvidence(doc.findings, 'appendix');
    // The three shown excerpts leave something out; the four not shown are all in the appendix
    // except the short one, which is its own excerpt.
    expect(appendix.findings[0]!.assets.map((a) => a.appendixNumber)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(appendix.findings[0]!.leftOutInAppendix).toEqual({ first: 4, last: 7, count: 4 });
    expect(appendix.appendix.map((e) => e.evidence)).toEqual(assets.map((a) => a.evidence));
    const none = planEvidence(doc.findings, 'none').findings[0]!;
    expect(none.assets.every((a) => a.shown === '')).toBe(true);
    expect(none.leftOut).toBe(0);
  });

  it("words what an excerpt leaves out in the report's language, the stored markers in English", () => {
    const doc = report();
    const english = planEvidence(doc.findings, 'excerpt').findings[0]!.assets[0]!.excerpt;
    expect(english).toMatch(/^\[… \d+ lines left out\]$/m);
    const german = planEvidence(doc.findings, 'excerpt', reportLocale('de-DE')).findings[0]!.assets[0]!.excerpt;
    expect(german).toMatch(/^\[… \d+ Zeilen ausgelassen\]$/m);
    expect(german).not.toMatch(/left out/);
    // Only the markers differ.
    const markers = /^\[… \d+ [^\]]+\]$/;
    const lines = (text: string) => text.split('\n').map((l) => (markers.test(l) ? '[marker]' : l));
    expect(lines(german)).toEqual(lines(english));
  });
});

describe.each(['layout', 'template'] as const)('evidence modes in %s', (kind) => {
  const renders = Object.fromEntries(
    EVIDENCE_MODES.map((mode) => [mode, render[kind](report(), mode).then(read)]),
  ) as Record<EvidenceMode, Promise<{ text: string; xml: string }>>;

  it('excerpt (default): the excerpts of the first assets, a note of the others, no page dump', async () => {
    const { text } = await renders.excerpt;
    expect(text).toContain('Evidence per asset');
    for (const n of [0, 1, 2]) {
      expect(text).toContain(`GET /search?q=PAYLOAD-${n} HTTP/1.1`);
      expect(text).toContain(`<p>You searched for: PAYLOAD-${n}</p>`);
      expect(text).not.toContain(`line 150 of page ${n}`);
    }
    expect(text).not.toContain('PAYLOAD-3');
    expect(text).toContain('[… 200 lines left out]');
    expect(text).toContain('[The evidence of 4 more assets is not shown]');
    expect(text).not.toContain('Scanner evidence');
    expect(text).not.toMatch(/\bexports?\b|Markdown|\bCSV\b/);
  });

  it('full: the whole evidence in the finding', async () => {
    const { text } = await renders.full;
    for (const n of [0, 1, 2, 3, 4]) expect(text).toContain(`line 150 of page ${n}`);
    expect(text).toContain('line 150 of page 9');
    expect(text).not.toContain('A tester wrote this excerpt.');
    expect(text).not.toContain('Scanner evidence');
  });

  it('appendix: excerpts referring to numbered entries of an appendix after the tabs placed after, before the links', async () => {
    const { text, xml } = await renders.appendix;
    expect(text).toContain('Full evidence: E1');
    expect(text).not.toContain('line 150 of page 0\n<p>line 151 of page 0</p>\nFull evidence');
    const finding = text.indexOf('1. Cross-site scripting (reflected)');
    const tabAfter = text.lastIndexOf('Appendix A: Methodology');
    const appendix = text.lastIndexOf('Scanner evidence');
    const links = text.lastIndexOf('Ticket');
    expect(finding).toBeGreaterThan(0);
    expect(tabAfter).toBeGreaterThan(finding);
    expect(appendix).toBeGreaterThan(tabAfter);
    expect(links).toBeGreaterThan(appendix);
    const after = text.slice(appendix);
    expect(after).toContain('E1 · ');
    expect(after).toContain('E7 · ');
    for (const n of [0, 1, 2, 3, 4]) expect(after).toContain(`line 150 of page ${n}`);
    expect(after).toContain('TLSv1.0 enabled');
    if (kind === 'layout') {
      expect(text).toContain('[The evidence of 4 more assets is E4–E7 in “Scanner evidence”]');
      expect(xml).toContain('w:anchor="evidence_1"');
      expect(xml).toContain('w:name="evidence_1"');
      expect(xml).toContain('w:name="evidence_appendix"');
      // The contents list the appendix once.
      expect(xml.match(/w:anchor="evidence_appendix"/g)).toHaveLength(1);
    }
  });

  it('none: no scanner evidence at all', async () => {
    const { text } = await renders.none;
    expect(text).not.toContain('Evidence per asset');
    expect(text).not.toContain('PAYLOAD-0');
    expect(text).not.toContain('TLSv1.0 enabled');
    expect(text).not.toContain('Scanner evidence');
    expect(text).not.toContain('not shown');
  });

  it('writes the labels of the evidence appendix in German', async () => {
    const { text } = read(await render[kind](report('de-DE'), 'appendix'));
    expect(text).toContain('Nachweise je System');
    expect(text).toContain('Scanner-Nachweise');
    expect(text).toContain('Vollständiger Nachweis');
    expect(text).toContain('N1 · ');
    expect(text).not.toContain('Full evidence');
  });
});

describe('template tags of asset evidence', () => {
  it('give the excerpt and the whole evidence whatever the mode, and the mode, appendix numbers and notes', async () => {
    const template = templateWithBody(
      [
        para('mode={evidenceMode} appendix={#hasEvidenceAppendix}yes{/hasEvidenceAppendix}'),
        para('{#findings}{#hasAssetEvidence}'),
        para(
          '{#affectedAssets}[{location}] excerpt={excerpt} number={evidenceNumber} shown={evidence}{/affectedAssets}',
        ),
        para('note={evidenceLeftOut}'),
        para('{/hasAssetEvidence}{/findings}'),
        para(
          '{#evidenceAppendix}entry {number} of {findingNumber}. {findingTitle} at {location} {url}{/evidenceAppendix}',
        ),
      ].join(''),
    );
    const doc: ReportDocument = {
      ...report(),
      findings: [
        {
          ...report().findings[0]!,
          affectedAssets: [
            { host: 'written.example', evidence: exchange(9), excerpt: 'A tester wrote this excerpt.' },
            { host: 'short.example', evidence: 'TLSv1.0 enabled' },
          ],
        },
      ],
    };
    const appendix = read(await renderTemplateDocx(template, doc, options('appendix'))).text;
    expect(appendix).toContain('mode=appendix appendix=yes');
    expect(appendix).toContain(
      '[written.example] excerpt=A tester wrote this excerpt. number=E1 shown=A tester wrote this excerpt.',
    );
    expect(appendix).toContain('[short.example] excerpt=TLSv1.0 enabled number= shown=TLSv1.0 enabled');
    expect(appendix).toContain('entry E1 of 1. Cross-site scripting (reflected) at written.example');
    const none = read(await renderTemplateDocx(template, doc, options('none'))).text;
    expect(none).toContain('mode=none appendix=');
    expect(none).not.toContain('excerpt=');
    expect(none).not.toContain('entry E1');
    const full = read(await renderTemplateDocx(template, doc, options('full'))).text;
    expect(full).toContain('excerpt=A tester wrote this excerpt. number= shown=The payload PAYLOAD-9 was echoed.');
  });
});
