import {
  FINDING_MARKDOWN_FIELDS,
  type AffectedAsset,
  type FindingMarkdownFieldName,
  type ReportDocumentFinding,
} from '@service/report-model';
import { EVIDENCE_CHARS, type EvidenceAppendixEntry, type FindingEvidence } from '../evidence-plan.ts';
import { isHyperlinkTarget, type Block } from '../markdown-blocks.ts';
import { assetLocation, cvssRatings } from '../report-labels.ts';
import { isRightToLeft } from '../text-direction.ts';
import { fitColumnWidths } from '../wordml/column-widths.ts';
import { figure, markdownToWordml, styledTable, TABLE_CELL_MARGINS, writeCode } from '../wordml/markdown-to-wordml.ts';
import { bookmark, hyperlink, internalLink, paragraph, run } from '../wordml/wordml.ts';
import { docxColour, textColourOn } from './colours.ts';
import type { LayoutContext } from './layout-context.ts';
import { STYLE } from './layout-styles.ts';

/** Above this many affected assets, a finding lists them compactly (three to a row, small type). */
export const FULL_ASSET_TABLE_LIMIT = 100;
/** Bookmark name of an entry of the evidence appendix, so the finding refers to it. */
export const evidenceBookmark = (number: number) => `evidence_${number}`;
/** Bookmark name of the evidence appendix. */
export const EVIDENCE_APPENDIX_BOOKMARK = 'evidence_appendix';

/** Bookmark name of a finding's heading, so the summary table and the contents link to it. */
export const findingBookmark = (number: number) => `finding_${number}`;

/** A finding's Markdown text fields, parsed: one section each, in declaration order. */
export type FindingMarkdown = Record<FindingMarkdownFieldName, Block[]>;

export function findingMarkdown(f: ReportDocumentFinding, parse: (markdown: string) => Block[]): FindingMarkdown {
  return Object.fromEntries(FINDING_MARKDOWN_FIELDS.map(({ name }) => [name, parse(f[name])])) as FindingMarkdown;
}

const heading3 = (text: string) => paragraph({ style: 'Heading3' }, run(text));

/**
 * One finding: a header bar in its severity colour, its facts, assets, text sections, references,
 * evidence images and its assets' scanner evidence as the style's evidence mode shows it (`assets`).
 */
export function findingSection(
  f: ReportDocumentFinding,
  number: number,
  md: FindingMarkdown,
  ctx: LayoutContext,
  assetEvidenceOfFinding: FindingEvidence = { assets: [], leftOut: 0, leftOutInAppendix: null },
): string {
  const out: string[] = [];
  const { locale } = ctx;
  const fill = docxColour(ctx.style.severityColors[f.severity]);
  const ink = textColourOn(fill);
  const pad = { color: fill, size: 6, space: 3 };
  out.push(
    paragraph(
      {
        style: 'Heading2',
        borders: { top: pad, left: { ...pad, space: 4 }, bottom: pad, right: { ...pad, space: 4 } },
        shading: fill,
        bidi: isRightToLeft(f.title),
        spacing: { before: 480, after: 80 },
        indent: { left: 100, right: 100 },
      },
      bookmark(ctx.parts.bookmarkId(), findingBookmark(number), run(`${number}. ${f.title}`, { color: ink })),
    ),
  );
  out.push(factsTable(f, ctx));
  // Why right under the scores: a severity other than the score's band is explained where it is read.
  if (f.severityReason.trim() !== '')
    out.push(
      paragraph(
        { spacing: { before: 60, after: 120 } },
        run(`${locale.fieldLabel('severityReason')}: `, { bold: true }) + run(f.severityReason, { italic: true }),
      ),
    );
  const shown = new Set<string>();
  const section = (title: string, blocks: Block[]) => {
    if (blocks.length === 0) return;
    out.push(heading3(title));
    out.push(markdownToWordml(blocks, ctx, { baseHeading: 4, shown }));
  };
  if (f.affectedAssets.length > 0) {
    out.push(heading3(`${locale.fieldLabel('affectedAssets')} (${locale.integer(f.affectedAssets.length)})`));
    out.push(assetsTable(f.affectedAssets, ctx));
  }
  for (const { name } of FINDING_MARKDOWN_FIELDS) section(locale.fieldLabel(name), md[name]);
  if (f.references.length > 0) {
    out.push(heading3(locale.fieldLabel('references')));
    const numId = ctx.parts.list(false, 1);
    for (const r of f.references) {
      const text = run(r, isHyperlinkTarget(r) ? { style: STYLE.hyperlink } : '');
      out.push(
        paragraph(
          { style: 'ListParagraph', numbering: { numId, level: 0 } },
          isHyperlinkTarget(r) ? hyperlink(ctx.parts.hyperlink(r), text) : text,
        ),
      );
    }
  }
  const images = f.evidence.filter((e) => !shown.has(e.sha256));
  if (images.length > 0) {
    out.push(heading3(locale.text('evidence')));
    for (const e of images) out.push(figure(e.sha256, e.caption, e.fileName, ctx, shown));
  }
  if (assetEvidenceOfFinding.assets.some((a) => a.shown !== '')) out.push(assetEvidence(assetEvidenceOfFinding, ctx));
  return out.join('');
}

/** The cell style and the table font size of our layout's tables (Table Text: 9 pt). */
const TABLE_FIT = { fontSize: 18, cellMargins: TABLE_CELL_MARGINS };

function factsTable(f: ReportDocumentFinding, ctx: LayoutContext): string {
  const { locale } = ctx;
  const fill = docxColour(ctx.style.severityColors[f.severity]);
  const label = (t: string) => ({ runs: run(t), style: STYLE.fieldLabel });
  const texts: string[][] = [
    [
      locale.fieldLabel('severity'),
      locale.severity(f.severity),
      locale.fieldLabel('status'),
      locale.findingStatus(f.status),
    ],
  ];
  const rows: Array<Array<string | { runs: string; fill?: string; style?: string | null }>> = [
    [
      label(texts[0]![0]!),
      { runs: run(texts[0]![1]!, { bold: true, color: textColourOn(fill) }), fill },
      label(texts[0]![2]!),
      run(texts[0]![3]!),
    ],
  ];
  for (const c of cvssRatings(f.cvss)) {
    const row = [
      `CVSS ${c.version}`,
      c.score === null ? '—' : locale.score(c.score),
      locale.text('vector'),
      c.vector ?? locale.text('noVector'),
    ];
    texts.push(row);
    rows.push([
      label(row[0]!),
      run(row[1]!),
      label(row[2]!),
      c.vector ? run(c.vector, { style: STYLE.inlineCode }) : run(row[3]!, { italic: true }),
    ]);
  }
  if (f.cves.length > 0 || f.cwes.length > 0) {
    const row = [
      locale.text('cve'),
      f.cves.join(', ') || '—',
      locale.text('cwe'),
      f.cwes.map((c) => `CWE-${c}`).join(', ') || '—',
    ];
    texts.push(row);
    rows.push([label(row[0]!), run(row[1]!), label(row[2]!), run(row[3]!)]);
  }
  const widths = fitColumnWidths(
    [0, 1, 2, 3].map((c) =>
      c % 2 === 0 ? { labels: texts.map((t) => t[c]!), cells: [] } : { cells: texts.map((t) => t[c]!) },
    ),
    ctx.textWidth,
    TABLE_FIT,
  );
  return styledTable({ rows, widths, striped: false }, ctx);
}

function assetsTable(assets: readonly AffectedAsset[], ctx: LayoutContext): string {
  const { locale } = ctx;
  const spacer = paragraph({ spacing: { before: 0, after: 0 } }, '');
  if (assets.length <= FULL_ASSET_TABLE_LIMIT) {
    const texts = assets.map((a) => [
      assetLocation(a),
      a.service ?? '',
      [a.url, a.parameter ? locale.text('parameterNamed', { name: a.parameter }) : ''].filter(Boolean).join('\n'),
    ]);
    const header = [locale.text('host'), locale.text('service'), locale.text('urlParameter')];
    return (
      styledTable(
        {
          header: header.map((h) => run(h)),
          rows: texts.map((row) => row.map((t) => run(t))),
          widths: fitColumnWidths(
            header.map((h, c) => ({ header: h, cells: texts.map((t) => t[c]!) })),
            ctx.textWidth,
            TABLE_FIT,
          ),
        },
        ctx,
      ) + spacer
    );
  }
  // Why: thousands of assets as one row each would fill hundreds of pages; three to a row in small
  // type keeps every one of them listed in a third of the space.
  const perRow = 3;
  const rows: Array<Array<{ runs: string; style: string }>> = [];
  for (let i = 0; i < assets.length; i += perRow) {
    const row: Array<{ runs: string; style: string }> = [];
    for (let c = 0; c < perRow; c++) {
      const a = assets[i + c];
      row.push({ runs: a ? run(compactAsset(a)) : '', style: STYLE.compact });
    }
    rows.push(row);
  }
  const intro = paragraph(null, run(locale.text('assetsListedCompactly', { count: locale.integer(assets.length) })));
  const third = Math.floor(ctx.textWidth / perRow);
  const header = run(locale.text('asset'));
  return (
    intro +
    styledTable(
      {
        header: [header, header, header],
        rows,
        widths: [third, third, ctx.textWidth - 2 * third],
      },
      ctx,
    ) +
    spacer
  );
}

function compactAsset(a: AffectedAsset): string {
  const parts = [assetLocation(a)];
  if (a.url) parts.push(a.url);
  if (a.parameter) parts.push(`(${a.parameter})`);
  return parts.join(' ');
}

const assetHeading = (a: AffectedAsset, ctx: LayoutContext) =>
  [assetLocation(a), a.url].filter(Boolean).join(' ') || ctx.locale.text('asset');

const note = (text: string) => paragraph(null, run(text, { italic: true }));

/** Whole evidence as code, at most EVIDENCE_CHARS characters, saying what is left out. */
function writeWholeEvidence(text: string, ctx: LayoutContext, out: string[]): void {
  writeCode(text.length > EVIDENCE_CHARS ? text.slice(0, EVIDENCE_CHARS) : text, ctx, out, 0);
  if (text.length > EVIDENCE_CHARS)
    out.push(
      note(
        ctx.locale.text('evidenceCharactersLeftOut', {
          count: ctx.locale.integer(text.length - EVIDENCE_CHARS),
        }),
      ),
    );
}

/** `E4` or `E4–E25`: appendix entries as the finding names them. */
export function evidenceRange(ctx: LayoutContext, first: number, last: number): string {
  const ref = (n: number) => ctx.locale.text('evidenceNumber', { number: n });
  return first === last ? ref(first) : `${ref(first)}–${ref(last)}`;
}

/** Each asset's evidence as the mode shows it: its excerpt or its whole evidence, and where the whole evidence is. */
function assetEvidence(evidence: FindingEvidence, ctx: LayoutContext): string {
  const { locale } = ctx;
  const out: string[] = [heading3(locale.text('evidencePerAsset'))];
  const appendix = locale.text('evidenceAppendix');
  for (const a of evidence.assets) {
    if (a.shown === '') continue;
    out.push(paragraph({ style: 'Heading4' }, run(assetHeading(a.asset, ctx))));
    if (ctx.style.evidenceMode === 'full') writeWholeEvidence(a.shown, ctx, out);
    else writeCode(a.shown, ctx, out, 0);
    if (a.appendixNumber !== null) {
      const ref = evidenceRange(ctx, a.appendixNumber, a.appendixNumber);
      out.push(
        paragraph(
          { spacing: { before: 0, after: 160 } },
          internalLink(
            evidenceBookmark(a.appendixNumber),
            run(locale.text('fullEvidenceIn', { ref, appendix }), { italic: true, style: STYLE.hyperlink }),
          ),
        ),
      );
    }
  }
  const inAppendix = evidence.leftOutInAppendix;
  if (inAppendix)
    out.push(
      paragraph(
        null,
        internalLink(
          evidenceBookmark(inAppendix.first),
          run(
            locale.plural('evidenceAssetsInAppendix', inAppendix.count, {
              range: evidenceRange(ctx, inAppendix.first, inAppendix.last),
              appendix,
            }),
            { italic: true, style: STYLE.hyperlink },
          ),
        ),
      ),
    );
  const notShown = evidence.leftOut - (inAppendix?.count ?? 0);
  if (notShown > 0) out.push(note(locale.plural('evidenceAssetsLeftOut', notShown)));
  return out.join('');
}

/**
 * The evidence appendix (style `appendix`): under its heading, the whole evidence of each asset
 * whose finding shows an excerpt, grouped by finding, each entry numbered as the finding refers to it.
 */
export function evidenceAppendix(entries: readonly EvidenceAppendixEntry[], ctx: LayoutContext): string {
  const { locale } = ctx;
  const out: string[] = [
    paragraph(
      { style: 'Heading1', pageBreakBefore: true },
      bookmark(ctx.parts.bookmarkId(), EVIDENCE_APPENDIX_BOOKMARK, run(locale.text('evidenceAppendix'))),
    ),
    paragraph(null, run(locale.text('evidenceAppendixIntro'))),
  ];
  let finding = 0;
  for (const e of entries) {
    if (e.findingNumber !== finding) {
      finding = e.findingNumber;
      out.push(
        paragraph(
          { style: 'Heading3' },
          internalLink(findingBookmark(e.findingNumber), run(`${e.findingNumber}. ${e.findingTitle}`)),
        ),
      );
    }
    const ref = evidenceRange(ctx, e.number, e.number);
    out.push(
      paragraph(
        { style: 'Heading4' },
        bookmark(ctx.parts.bookmarkId(), evidenceBookmark(e.number), run(`${ref} · ${assetHeading(e.asset, ctx)}`)),
      ),
    );
    writeWholeEvidence(e.evidence, ctx, out);
  }
  return out.join('');
}
