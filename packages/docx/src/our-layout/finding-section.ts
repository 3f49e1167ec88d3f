import {
  FINDING,
  FINDING_MARKDOWN_FIELDS,
  type AffectedAsset,
  type Cvss,
  type FindingFieldName,
  type FindingFieldShape,
  type FindingMarkdownFieldName,
  type FindingStatus,
  type ReportDocumentFinding,
  type Severity,
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

/** A row of the facts table is two facts: a label and its value each. */
interface Fact {
  label: string;
  value: string;
  /** The value as runs, when not plain text. */
  runs?: string;
  fill?: string;
  /** An empty list shown as `—`: a row of empty facts only is left out. */
  empty?: boolean;
}

/** What our layout makes of one finding field: facts, a paragraph under them, a part of the body, or nothing. */
type FieldPart =
  | { place: 'facts'; facts: Fact[] }
  | { place: 'note' | 'body'; xml: string }
  | { place: 'title' | 'none' };

const listFact = (label: string, items: readonly string[]): Fact => ({
  label,
  value: items.join(', ') || '—',
  empty: items.length === 0,
});

/**
 * Where our layout shows a finding field, by its shape: the title in the header bar, scores and
 * lists as facts, a note under them, text, assets and references as parts of the body; a new shape
 * is a compile error here until it is decided. `shown` collects the images the body draws.
 */
function fieldPart(
  name: FindingFieldName,
  shape: FindingFieldShape,
  f: ReportDocumentFinding,
  md: FindingMarkdown,
  ctx: LayoutContext,
  shown: Set<string>,
): FieldPart {
  const { locale } = ctx;
  const value = f[name];
  switch (shape) {
    case 'title':
      return { place: 'title' };
    case 'severity': {
      const fill = docxColour(ctx.style.severityColors[value as Severity]);
      const text = locale.severity(value as Severity);
      const runs = run(text, { bold: true, color: textColourOn(fill) });
      return { place: 'facts', facts: [{ label: locale.fieldLabel(name), value: text, runs, fill }] };
    }
    case 'status':
      return {
        place: 'facts',
        facts: [{ label: locale.fieldLabel(name), value: locale.findingStatus(value as FindingStatus) }],
      };
    case 'cvss':
      return {
        place: 'facts',
        facts: cvssRatings(value as Cvss[]).flatMap((c): Fact[] => [
          { label: `CVSS ${c.version}`, value: c.score === null ? '—' : locale.score(c.score) },
          c.vector
            ? { label: locale.text('vector'), value: c.vector, runs: run(c.vector, { style: STYLE.inlineCode }) }
            : {
                label: locale.text('vector'),
                value: locale.text('noVector'),
                runs: run(locale.text('noVector'), { italic: true }),
              },
        ]),
      };
    case 'cveList':
      return { place: 'facts', facts: [listFact(locale.text('cve'), value as string[])] };
    case 'cweList':
      return {
        place: 'facts',
        facts: [
          listFact(
            locale.text('cwe'),
            (value as number[]).map((c) => `CWE-${c}`),
          ),
        ],
      };
    case 'note':
      // Why right under the scores: a severity other than the score's band is explained where it is read.
      return {
        place: 'note',
        xml:
          (value as string).trim() === ''
            ? ''
            : paragraph(
                { spacing: { before: 60, after: 120 } },
                run(`${locale.fieldLabel(name)}: `, { bold: true }) + run(value as string, { italic: true }),
              ),
      };
    case 'assets': {
      const assets = value as AffectedAsset[];
      if (assets.length === 0) return { place: 'body', xml: '' };
      const heading = heading3(`${locale.fieldLabel(name)} (${locale.integer(assets.length)})`);
      return { place: 'body', xml: heading + assetsTable(assets, ctx) };
    }
    case 'markdown': {
      const blocks = md[name as FindingMarkdownFieldName];
      if (blocks.length === 0) return { place: 'body', xml: '' };
      return {
        place: 'body',
        xml: heading3(locale.fieldLabel(name)) + markdownToWordml(blocks, ctx, { baseHeading: 4, shown }),
      };
    }
    case 'referenceList':
      return { place: 'body', xml: referenceList(locale.fieldLabel(name), value as string[], ctx) };
    case 'source':
      // Why not shown: where a finding came from (a scanner rule, a library template) is the tester's, not the client's.
      return { place: 'none' };
    default:
      return shape satisfies never;
  }
}

function referenceList(label: string, references: readonly string[], ctx: LayoutContext): string {
  if (references.length === 0) return '';
  const out = [heading3(label)];
  const numId = ctx.parts.list(false, 1);
  for (const r of references) {
    const text = run(r, isHyperlinkTarget(r) ? { style: STYLE.hyperlink } : '');
    out.push(
      paragraph(
        { style: 'ListParagraph', numbering: { numId, level: 0 } },
        isHyperlinkTarget(r) ? hyperlink(ctx.parts.hyperlink(r), text) : text,
      ),
    );
  }
  return out.join('');
}

function headerBar(f: ReportDocumentFinding, title: string, number: number, ctx: LayoutContext): string {
  const fill = docxColour(ctx.style.severityColors[f.severity]);
  const pad = { color: fill, size: 6, space: 3 };
  return paragraph(
    {
      style: 'Heading2',
      borders: { top: pad, left: { ...pad, space: 4 }, bottom: pad, right: { ...pad, space: 4 } },
      shading: fill,
      bidi: isRightToLeft(title),
      spacing: { before: 480, after: 80 },
      indent: { left: 100, right: 100 },
    },
    bookmark(
      ctx.parts.bookmarkId(),
      findingBookmark(number),
      run(`${number}. ${title}`, { color: textColourOn(fill) }),
    ),
  );
}

/**
 * One finding: a header bar in its severity colour, its facts, then its fields by their shapes
 * (assets, text sections, references), its evidence images and its assets' scanner evidence as the
 * style's evidence mode shows it (`assets`).
 */
export function findingSection(
  f: ReportDocumentFinding,
  number: number,
  md: FindingMarkdown,
  ctx: LayoutContext,
  assetEvidenceOfFinding: FindingEvidence = { assets: [], leftOut: 0, leftOutInAppendix: null },
): string {
  const shown = new Set<string>();
  const facts: Fact[] = [];
  const notes: string[] = [];
  const body: string[] = [];
  let title = '';
  for (const [name, field] of FINDING.entries) {
    const part = fieldPart(name, field.shape, f, md, ctx, shown);
    if (part.place === 'title') title = f[name] as string;
    else if (part.place === 'facts') facts.push(...part.facts);
    else if (part.place === 'note') notes.push(part.xml);
    else if (part.place === 'body') body.push(part.xml);
  }
  const out = [headerBar(f, title, number, ctx), factsTable(facts, ctx), ...notes, ...body];
  const images = f.evidence.filter((e) => !shown.has(e.sha256));
  if (images.length > 0) {
    out.push(heading3(ctx.locale.text('evidence')));
    for (const e of images) out.push(figure(e.sha256, e.caption, e.fileName, ctx, shown));
  }
  if (assetEvidenceOfFinding.assets.some((a) => a.shown !== '')) out.push(assetEvidence(assetEvidenceOfFinding, ctx));
  return out.join('');
}

/** The cell style and the table font size of our layout's tables (Table Text: 9 pt). */
const TABLE_FIT = { fontSize: 18, cellMargins: TABLE_CELL_MARGINS };

/** The facts, two to a row; a row whose facts are all empty lists is left out. */
function factsTable(facts: readonly Fact[], ctx: LayoutContext): string {
  const label = (t: string) => ({ runs: run(t), style: STYLE.fieldLabel });
  const texts: string[][] = [];
  const rows: Array<Array<string | { runs: string; fill?: string; style?: string | null }>> = [];
  for (let i = 0; i < facts.length; i += 2) {
    const pair = facts.slice(i, i + 2);
    if (pair.every((p) => p.empty)) continue;
    const cells = pair.flatMap((p) => [
      label(p.label),
      p.fill ? { runs: p.runs ?? run(p.value), fill: p.fill } : (p.runs ?? run(p.value)),
    ]);
    texts.push([...pair.flatMap((p) => [p.label, p.value]), '', ''].slice(0, 4));
    rows.push([...cells, '', ''].slice(0, 4));
  }
  const widths = fitColumnWidths(
    [0, 1, 2, 3].map((c) =>
      c % 2 === 0 ? { labels: texts.map((t) => t[c] ?? ''), cells: [] } : { cells: texts.map((t) => t[c] ?? '') },
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
