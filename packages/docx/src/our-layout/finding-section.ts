import {
  FINDING_FIELDS,
  FINDING_MARKDOWN_FIELDS,
  type AffectedAsset,
  type FindingMarkdownFieldName,
  type ReportDocumentFinding,
} from '@service/report-model';
import { isHyperlinkTarget, type Block } from '../markdown-blocks.ts';
import { assetLocation, cvssRatings, findingStatusLabel, formatScore, SEVERITY_LABELS } from '../report-labels.ts';
import { isRightToLeft } from '../text-direction.ts';
import { columnWidths, figure, markdownToWordml, styledTable, writeCode } from '../wordml/markdown-to-wordml.ts';
import { bookmark, hyperlink, paragraph, run } from '../wordml/wordml.ts';
import { docxColour, textColourOn } from './colours.ts';
import type { LayoutContext } from './layout-context.ts';
import { STYLE } from './layout-styles.ts';

/** Above this many affected assets, a finding lists them compactly (three to a row, small type). */
export const FULL_ASSET_TABLE_LIMIT = 100;
/** Asset evidence (scanner output, HTTP messages) is printed for at most this many assets of a finding... */
export const ASSET_EVIDENCE_LIMIT = 25;
/** ...and at most this many characters each; what is left out is said, not silently cut. */
export const ASSET_EVIDENCE_CHARS = 20_000;

/** Bookmark name of a finding's heading, so the summary table and the contents link to it. */
export const findingBookmark = (number: number) => `finding_${number}`;

/** A finding's Markdown text fields, parsed: one section each, in declaration order. */
export type FindingMarkdown = Record<FindingMarkdownFieldName, Block[]>;

export function findingMarkdown(f: ReportDocumentFinding, parse: (markdown: string) => Block[]): FindingMarkdown {
  return Object.fromEntries(FINDING_MARKDOWN_FIELDS.map(({ name }) => [name, parse(f[name])])) as FindingMarkdown;
}

const heading3 = (text: string) => paragraph({ style: 'Heading3' }, run(text));

/** One finding: a header bar in its severity colour, its facts, assets, text sections, references and evidence. */
export function findingSection(
  f: ReportDocumentFinding,
  number: number,
  md: FindingMarkdown,
  ctx: LayoutContext,
): string {
  const out: string[] = [];
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
        run(`${FINDING_FIELDS.severityReason.label}: `, { bold: true }) + run(f.severityReason, { italic: true }),
      ),
    );
  const shown = new Set<string>();
  const section = (title: string, blocks: Block[]) => {
    if (blocks.length === 0) return;
    out.push(heading3(title));
    out.push(markdownToWordml(blocks, ctx, { baseHeading: 4, shown }));
  };
  if (f.affectedAssets.length > 0) {
    out.push(heading3(`${FINDING_FIELDS.affectedAssets.label} (${f.affectedAssets.length.toLocaleString('en')})`));
    out.push(assetsTable(f.affectedAssets, ctx));
  }
  for (const { name, label } of FINDING_MARKDOWN_FIELDS) section(label, md[name]);
  if (f.references.length > 0) {
    out.push(heading3(FINDING_FIELDS.references.label));
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
  const evidence = f.evidence.filter((e) => !shown.has(e.sha256));
  if (evidence.length > 0) {
    out.push(heading3('Evidence'));
    for (const e of evidence) out.push(figure(e.sha256, e.caption, e.fileName, ctx, shown));
  }
  if (f.affectedAssets.some((a) => a.evidence)) out.push(assetEvidence(f.affectedAssets, ctx));
  return out.join('');
}

function factsTable(f: ReportDocumentFinding, ctx: LayoutContext): string {
  const fill = docxColour(ctx.style.severityColors[f.severity]);
  const label = (t: string) => ({ runs: run(t), style: STYLE.fieldLabel });
  const rows: Array<Array<string | { runs: string; fill?: string; style?: string | null }>> = [
    [
      label('Severity'),
      { runs: run(SEVERITY_LABELS[f.severity], { bold: true, color: textColourOn(fill) }), fill },
      label('Status'),
      run(findingStatusLabel(f.status)),
    ],
  ];
  for (const c of cvssRatings(f.cvss)) {
    rows.push([
      label(`CVSS ${c.version}`),
      run(c.score === null ? '—' : formatScore(c.score)),
      label('Vector'),
      c.vector ? run(c.vector, { style: STYLE.inlineCode }) : run('no vector', { italic: true }),
    ]);
  }
  if (f.cves.length > 0 || f.cwes.length > 0) {
    rows.push([
      label('CVE'),
      run(f.cves.join(', ') || '—'),
      label('CWE'),
      run(f.cwes.map((c) => `CWE-${c}`).join(', ') || '—'),
    ]);
  }
  return styledTable({ rows, widths: columnWidths([16, 22, 14, 48], ctx.textWidth), striped: false }, ctx);
}

function assetsTable(assets: readonly AffectedAsset[], ctx: LayoutContext): string {
  const spacer = paragraph({ spacing: { before: 0, after: 0 } }, '');
  if (assets.length <= FULL_ASSET_TABLE_LIMIT) {
    const rows = assets.map((a) => [
      run(assetLocation(a)),
      run(a.service ?? ''),
      run([a.url, a.parameter ? `parameter: ${a.parameter}` : ''].filter(Boolean).join('\n')),
    ]);
    return (
      styledTable(
        {
          header: [run('Host'), run('Service'), run('URL / parameter')],
          rows,
          widths: columnWidths([34, 14, 52], ctx.textWidth),
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
  const intro = paragraph(
    null,
    run(`${assets.length.toLocaleString('en')} assets, listed three to a row as host:port/protocol and URL.`),
  );
  return (
    intro +
    styledTable(
      { header: [run('Asset'), run('Asset'), run('Asset')], rows, widths: columnWidths([1, 1, 1], ctx.textWidth) },
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

function assetEvidence(assets: readonly AffectedAsset[], ctx: LayoutContext): string {
  const out: string[] = [heading3('Evidence per asset')];
  const withEvidence = assets.filter((a) => a.evidence);
  const note = (text: string) => paragraph(null, run(text, { italic: true }));
  for (const a of withEvidence.slice(0, ASSET_EVIDENCE_LIMIT)) {
    out.push(paragraph({ style: 'Heading4' }, run([assetLocation(a), a.url].filter(Boolean).join(' ') || 'Asset')));
    const text = a.evidence!;
    writeCode(text.length > ASSET_EVIDENCE_CHARS ? text.slice(0, ASSET_EVIDENCE_CHARS) : text, ctx, out, 0);
    if (text.length > ASSET_EVIDENCE_CHARS)
      out.push(
        note(
          `[${(text.length - ASSET_EVIDENCE_CHARS).toLocaleString('en')} more characters of ` +
            `this evidence are in the Markdown and CSV exports]`,
        ),
      );
  }
  if (withEvidence.length > ASSET_EVIDENCE_LIMIT)
    out.push(
      note(
        `[Evidence of ${(withEvidence.length - ASSET_EVIDENCE_LIMIT).toLocaleString('en')} ` +
          `more assets is in the Markdown and CSV exports]`,
      ),
    );
  return out.join('');
}
