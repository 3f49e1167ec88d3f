import {
  fitImage,
  isEvidenceImage,
  missingImageText,
  type LoadedEvidence,
  type MissingImage,
} from '../evidence-images.ts';
import { inlineText, topHeadingLevel, type Block, type Inline, type TextMarks } from '../markdown-blocks.ts';
import { hasRightToLeft, isRightToLeft } from '../text-direction.ts';
import type { ReportLocale } from '../messages/report-locale.ts';
import { fitColumnWidths } from './column-widths.ts';
import type { PackageAdditions } from './package-additions.ts';
import {
  drawing,
  hyperlink,
  paragraph,
  run,
  table,
  type ParagraphProps,
  type RunProps,
  type TableCellSpec,
} from './wordml.ts';

/**
 * The style ids Markdown is written with; null where the document has no such style, and then
 * the writer formats directly (bold headings, mono code on grey, italic captions), so nothing
 * depends on a style being there.
 */
export interface WordStyles {
  /** Heading 1..6 */
  heading: Array<string | null>;
  listBullet: string | null;
  listNumber: string | null;
  code: string | null;
  caption: string | null;
  quote: string | null;
  table: string | null;
  tableText: string | null;
  tableHeaderText: string | null;
  placeholder: string | null;
  /** Character styles */
  hyperlink: string | null;
  inlineCode: string | null;
}

/** What writing Markdown into a document needs: its styles, its images, and where new package parts go. */
export interface WordmlContext {
  styles: WordStyles;
  monoFont: string;
  images: Map<string, LoadedEvidence>;
  /** The largest picture, in pixels. */
  maxImage: { width: number; height: number };
  /** Width between the margins, in twips. */
  textWidth: number;
  parts: PackageAdditions;
  figures: { count: number };
  /** The report's language: figure captions and placeholder lines. */
  locale: ReportLocale;
  /** Font size of table text in half-points, for fitting column widths to their content. */
  tableFontSize: number;
  /** Table colours when the table style does not give them (hex without #, or null for none). */
  tableLook: { headerFill: string | null; headerText: string | null; stripe: string | null; grid: string | null };
}

export interface MarkdownPlacement {
  /** The heading level (1-6) the text's top-level headings become; deeper ones follow, up to 6. */
  baseHeading: number;
  /** Evidence images drawn here, so a list of evidence after the text does not repeat them. */
  shown?: Set<string>;
}

const INDENT = 397;

/** Markdown blocks as WordprocessingML paragraphs and tables. */
export function markdownToWordml(blocks: readonly Block[], ctx: WordmlContext, placement: MarkdownPlacement): string {
  const out: string[] = [];
  writeBlocks(
    blocks,
    ctx,
    placement,
    { shift: placement.baseHeading - topHeadingLevel(blocks), list: null, quoted: false },
    out,
  );
  return out.join('');
}

interface ListPosition {
  level: number;
  numId: number;
  ordered: boolean;
}

interface Where {
  shift: number;
  list: ListPosition | null;
  quoted: boolean;
}

const HEADING_SIZES = [32, 26, 23, 22, 21, 21];

function writeBlocks(
  blocks: readonly Block[],
  ctx: WordmlContext,
  placement: MarkdownPlacement,
  where: Where,
  out: string[],
): void {
  const { list } = where;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!;
    switch (b.kind) {
      case 'heading': {
        const level = Math.min(6, Math.max(1, b.level + where.shift));
        const style = ctx.styles.heading[level - 1] ?? null;
        const fallback: RunProps | null = style ? null : { bold: true, size: HEADING_SIZES[level - 1] };
        out.push(
          paragraph(
            { style, keepNext: true, bidi: isRightToLeft(inlineText(b.inlines)) },
            inlineRuns(b.inlines, ctx, fallback),
          ),
        );
        break;
      }
      case 'paragraph': {
        const props: ParagraphProps = { bidi: isRightToLeft(inlineText(b.inlines)) };
        let base: RunProps | null = null;
        if (list) {
          props.style = list.ordered ? ctx.styles.listNumber : ctx.styles.listBullet;
          // Why: the first paragraph of an item carries the bullet; later ones line up with its text.
          if (i === 0) props.numbering = { numId: list.numId, level: list.level };
          else props.indent = { left: INDENT * (list.level + 1) };
        } else if (where.quoted) {
          props.style = ctx.styles.quote;
          if (!props.style) {
            props.indent = { left: INDENT };
            base = { italic: true };
          }
        }
        out.push(paragraph(props, inlineRuns(b.inlines, ctx, base)));
        break;
      }
      case 'list': {
        const level = list ? Math.min(8, list.level + 1) : 0;
        const position: ListPosition = { level, numId: ctx.parts.list(b.ordered, b.start), ordered: b.ordered };
        for (const item of b.items) {
          if (item.length === 0 || item[0]!.kind !== 'paragraph')
            out.push(
              paragraph(
                {
                  style: b.ordered ? ctx.styles.listNumber : ctx.styles.listBullet,
                  numbering: { numId: position.numId, level },
                },
                '',
              ),
            );
          writeBlocks(item, ctx, placement, { ...where, list: position }, out);
        }
        break;
      }
      case 'code':
        writeCode(b.text, ctx, out, list ? INDENT * (list.level + 1) : 0);
        break;
      case 'quote':
        writeBlocks(b.blocks, ctx, placement, { ...where, quoted: true }, out);
        break;
      case 'rule':
        out.push(
          paragraph({ borders: { bottom: { color: 'BFC5CC', size: 6, space: 1 } }, spacing: { after: 200 } }, ''),
        );
        break;
      case 'table':
        out.push(markdownTable(b, ctx));
        out.push(paragraph({ spacing: { before: 0, after: 60 } }, ''));
        break;
      case 'figure':
        out.push(
          figure(
            b.image.evidence?.sha256 ?? null,
            b.image.alt,
            b.image.title ?? (b.image.src || 'image'),
            ctx,
            placement.shown,
          ),
        );
        break;
    }
  }
}

/** Runs for styled text: emphasis, code, strike-through, links as hyperlinks, images in the line. */
export function inlineRuns(inlines: readonly Inline[], ctx: WordmlContext, base: RunProps | null = null): string {
  let s = '';
  for (const i of inlines) {
    if (i.kind === 'break') s += '<w:r><w:br/></w:r>';
    else if (i.kind === 'image') s += inlineImage(i, ctx);
    else {
      const r = run(i.text, textProps(i.marks, !!i.link, i.text, ctx, base));
      s += i.link ? hyperlink(ctx.parts.hyperlink(i.link), r) : r;
    }
  }
  return s;
}

function textProps(
  marks: TextMarks,
  link: boolean,
  text: string,
  ctx: WordmlContext,
  base: RunProps | null,
): RunProps | string {
  const rtl = hasRightToLeft(text);
  if (!marks.bold && !marks.italic && !marks.strike && !marks.code && !link && !rtl && !base) return '';
  const p: RunProps = { ...base };
  if (marks.code) {
    if (ctx.styles.inlineCode) p.style = ctx.styles.inlineCode;
    else {
      p.font = ctx.monoFont;
      p.shading = 'F3F4F6';
    }
  } else if (link) {
    if (ctx.styles.hyperlink) p.style = ctx.styles.hyperlink;
    else {
      p.color = '0563C1';
      p.underline = true;
    }
  }
  if (marks.bold) p.bold = true;
  if (marks.italic) p.italic = true;
  if (marks.strike) p.strike = true;
  if (rtl) p.rtl = true;
  return p;
}

function inlineImage(i: Extract<Inline, { kind: 'image' }>, ctx: WordmlContext): string {
  const loaded = i.evidence ? ctx.images.get(i.evidence.sha256) : undefined;
  if (i.evidence && isEvidenceImage(loaded)) {
    const size = fitImage(loaded, Math.min(ctx.maxImage.width, 320), 200);
    return drawing(
      ctx.parts.image(i.evidence.sha256, loaded),
      ctx.parts.drawingId(),
      size.width,
      size.height,
      i.title ?? 'evidence',
      i.alt,
    );
  }
  const name = i.title ?? (i.alt || i.src);
  const why = loaded !== undefined && !isEvidenceImage(loaded) ? loaded : ({ missing: 'not-found' } as const);
  const text = i.evidence
    ? missingImageText(name, why, ctx.locale)
    : ctx.locale.text('imageElsewhere', { name: `${i.alt || name}${i.src ? ` (${i.src})` : ''}` });
  return run(text, { italic: true });
}

/** An image on its own in a centred paragraph, fitted to the page; a placeholder line when it cannot be drawn. */
export function picture(
  sha256: string | null,
  name: string,
  description: string,
  ctx: WordmlContext,
): { xml: string; drawn: boolean } {
  const loaded: LoadedEvidence | undefined = sha256 ? ctx.images.get(sha256) : undefined;
  if (sha256 === null || !isEvidenceImage(loaded)) {
    const why: MissingImage =
      sha256 === null
        ? { missing: 'unsupported', detail: 'not an evidence image' }
        : loaded !== undefined && !isEvidenceImage(loaded)
          ? loaded
          : { missing: 'not-found' };
    const style = ctx.styles.placeholder;
    return {
      xml: paragraph(
        { style, align: style ? undefined : 'center' },
        run(missingImageText(name, why, ctx.locale), style ? '' : { italic: true, color: '9A3412' }),
      ),
      drawn: false,
    };
  }
  if (loaded.slices && loaded.slices.length > 0) {
    // A tall screenshot: its parts one under the other at full width, one page high at most each;
    // only the last keeps with the caption that follows.
    const last = loaded.slices.length - 1;
    const xml = loaded.slices
      .map((slice, i) =>
        paragraph(
          { keepNext: i === last, align: 'center', spacing: { before: i === 0 ? 120 : 0, after: i === last ? 60 : 0 } },
          drawing(
            ctx.parts.image(`${sha256}-${i + 1}`, {
              ...slice,
              width: slice.display.width,
              height: slice.display.height,
            }),
            ctx.parts.drawingId(),
            slice.display.width,
            slice.display.height,
            `${name} (${i + 1}/${last + 1})`,
            description,
          ),
        ),
      )
      .join('');
    return { xml, drawn: true };
  }
  const size = fitImage(loaded, ctx.maxImage.width, ctx.maxImage.height);
  return {
    xml: paragraph(
      { keepNext: true, align: 'center', spacing: { before: 120, after: 60 } },
      drawing(ctx.parts.image(sha256, loaded), ctx.parts.drawingId(), size.width, size.height, name, description),
    ),
    drawn: true,
  };
}

/** An image on its own with its caption below ("Figure 3: ..."), or a placeholder line when it cannot be drawn. */
export function figure(
  sha256: string | null,
  caption: string,
  name: string,
  ctx: WordmlContext,
  shown?: Set<string>,
): string {
  if (sha256) shown?.add(sha256);
  const text = caption.trim() === '' ? name : caption;
  const image = picture(sha256, name, text, ctx);
  if (!image.drawn) return image.xml;
  const n = ++ctx.figures.count;
  const captionStyle = ctx.styles.caption;
  const captionRuns =
    run(ctx.locale.text('figureNumber', { number: n }), { bold: true, ...(captionStyle ? {} : { italic: true }) }) +
    run(text, captionStyle ? '' : { italic: true });
  return (
    image.xml +
    paragraph(
      { style: captionStyle, align: captionStyle ? undefined : 'center', bidi: isRightToLeft(text) },
      captionRuns,
    )
  );
}

/** A code block: one paragraph per line, so long blocks break across pages. */
export function writeCode(text: string, ctx: WordmlContext, out: string[], indent: number): void {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n');
  const style = ctx.styles.code;
  const direct = style
    ? ''
    : `<w:rFonts w:ascii="${ctx.monoFont}" w:hAnsi="${ctx.monoFont}" ` +
      `w:cs="${ctx.monoFont}"/><w:sz w:val="17"/><w:szCs w:val="17"/>`;
  const last = lines.length - 1;
  for (let n = 0; n <= last; n++) {
    const line = lines[n]!;
    const props: ParagraphProps = {
      style,
      spacing: { before: n === 0 ? 60 : 0, after: n === last ? 160 : 0, ...(style ? {} : { line: 240 }) },
    };
    if (!style) props.shading = 'F3F4F6';
    if (indent) props.indent = { left: indent };
    out.push(paragraph(props, line === '' ? '' : run(line, direct)));
  }
}

/** Left plus right padding of a table cell, in twips. */
export const TABLE_CELL_MARGINS = 180;

/** How header cell text is formatted when the document has no header text style: bold, in the band's text colour. */
export function headerRunProps(ctx: WordmlContext): RunProps | null {
  if (ctx.styles.tableHeaderText) return null;
  return { bold: true, ...(ctx.styles.table || !ctx.tableLook.headerText ? {} : { color: ctx.tableLook.headerText }) };
}

export interface StyledTable {
  widths: number[];
  /** Header cells as runs; build them with `headerRunProps`. */
  header?: string[];
  /** Cells as runs (strings), or with their own fill and alignment. */
  rows: Array<
    Array<string | { runs: string; fill?: string; align?: 'left' | 'center' | 'right'; style?: string | null }>
  >;
  align?: Array<'left' | 'center' | 'right' | null>;
  striped?: boolean;
}

/** A table in the document's look: its table style when it has one, else a header band, thin grid and stripes. */
export function styledTable(t: StyledTable, ctx: WordmlContext): string {
  const look = ctx.tableLook;
  const cellParagraph = (
    runs: string,
    col: number,
    header: boolean,
    own?: { align?: 'left' | 'center' | 'right'; style?: string | null },
  ) => {
    const align = own?.align ?? t.align?.[col] ?? undefined;
    const style = own?.style !== undefined ? own.style : header ? ctx.styles.tableHeaderText : ctx.styles.tableText;
    return paragraph(
      { style, ...(align ? { align } : {}), ...(style ? {} : { spacing: { before: 0, after: 0 } }) },
      runs,
    );
  };
  const headerFill = ctx.styles.table ? undefined : (look.headerFill ?? undefined);
  const header: TableCellSpec[] | undefined = t.header?.map((h, c) => ({
    content: cellParagraph(h, c, true),
    fill: headerFill,
  }));
  const rows: TableCellSpec[][] = t.rows.map((r, n) =>
    r.map((cell, c) => {
      const spec = typeof cell === 'string' ? { runs: cell } : cell;
      const fill =
        spec.fill ?? (n % 2 === 1 && t.striped !== false && !ctx.styles.table && look.stripe ? look.stripe : undefined);
      return { content: cellParagraph(spec.runs, c, false, typeof cell === 'string' ? undefined : cell), fill };
    }),
  );
  return table({
    widths: t.widths,
    style: ctx.styles.table,
    header,
    rows,
    grid: ctx.styles.table ? undefined : look.grid,
    cellMargin: { top: 50, bottom: 50, left: TABLE_CELL_MARGINS / 2, right: TABLE_CELL_MARGINS / 2 },
  });
}

function markdownTable(b: Extract<Block, { kind: 'table' }>, ctx: WordmlContext): string {
  const columns = Math.max(b.header.length, ...b.rows.map((r) => r.length), 1);
  const widths = fitColumnWidths(
    Array.from({ length: columns }, (_, c) => ({
      header: inlineText(b.header[c] ?? []),
      cells: b.rows.map((r) => inlineText(r[c] ?? [])),
    })),
    ctx.textWidth,
    { fontSize: ctx.tableFontSize, cellMargins: TABLE_CELL_MARGINS },
  );
  const header = Array.from({ length: columns }, (_, c) => inlineRuns(b.header[c] ?? [], ctx, headerRunProps(ctx)));
  const rows = b.rows.map((r) => Array.from({ length: columns }, (_, c) => inlineRuns(r[c] ?? [], ctx)));
  return styledTable({ widths, header, rows, align: b.align }, ctx);
}
