/**
 * Table column widths that follow their content, so a word in a header is never broken across
 * lines ("Environme|nt") and long cells get the room: each column gets at least its widest header
 * word, then as much of what is left as its longest line wants, like a browser's automatic table
 * layout. Text is measured with the advance widths of Liberation Sans (metric-compatible with
 * Arial), which is wider than Calibri and Carlito, so an estimate errs on the roomy side.
 */

// Advance widths of the printable ASCII characters (space to ~) in 1/1000 em.
// biome-ignore format: a table of numbers reads best as it is
const REGULAR = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556,
  556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833,
  722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556,
  556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334,
  260, 334, 584,
];
// biome-ignore format: a table of numbers reads best as it is
const BOLD = [
  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556,
  556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833,
  722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, 333, 556, 611, 556, 611,
  556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, 611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389,
  280, 389, 584,
];
/** Room for fonts wider than Arial and for rounding in the office suite. */
const SLACK = 1.1;

function charWidth(code: number, bold: boolean): number {
  if (code >= 32 && code < 127) return (bold ? BOLD : REGULAR)[code - 32]!;
  if (code >= 0x2e80) return 1000; // CJK and other wide scripts
  return bold ? 640 : 600; // accented Latin, Greek, Cyrillic...
}

/** The width of one line of text in twips at a font size in half-points. */
export function textWidthTwips(text: string, halfPoints: number, bold = false): number {
  let units = 0;
  for (const ch of text) units += charWidth(ch.codePointAt(0)!, bold);
  // half-points -> points (/2) -> twips (*20); units are 1/1000 em.
  return Math.ceil(((units * halfPoints * 10) / 1000) * SLACK);
}

const words = (text: string) => text.split(/\s+/).filter((w) => w !== '');

export interface ColumnText {
  /** The header cell's text; its words never break. */
  header?: string;
  /** Bold labels in body cells (a facts table's "Severity", "Status"); their words never break either. */
  labels?: readonly string[];
  /** The text of each body cell of the column (lines separated by \n). */
  cells: readonly string[];
}

export interface ColumnFit {
  /** Font size of body cells, in half-points (9 pt = 18). */
  fontSize: number;
  /** Font size of header cells (default: fontSize). Headers are measured bold. */
  headerFontSize?: number;
  /** Left plus right cell margin, in twips. */
  cellMargins: number;
  /** The narrowest a column may be, in twips (default 400). */
  minWidth?: number;
}

/**
 * Widths in twips that add up to `total`: every column at least as wide as its widest header
 * word (and, when there is room, its widest body word, capped at a third of the table), the rest
 * shared by how much more each column's longest line wants. When even the header words do not
 * fit (a very wide table), the widths are in proportion to them.
 */
export function fitColumnWidths(columns: readonly ColumnText[], total: number, fit: ColumnFit): number[] {
  const n = columns.length;
  if (n === 0) return [];
  const floor = fit.minWidth ?? 400;
  const headerSize = fit.headerFontSize ?? fit.fontSize;
  const measured = columns.map((c) => {
    const headerWords = c.header ? words(c.header) : [];
    const labels = c.labels ?? [];
    const hard = Math.max(
      floor,
      ...headerWords.map((w) => textWidthTwips(w, headerSize, true) + fit.cellMargins),
      ...labels.flatMap(words).map((w) => textWidthTwips(w, fit.fontSize, true) + fit.cellMargins),
    );
    let soft = hard;
    let preferred = Math.max(
      c.header ? textWidthTwips(c.header, headerSize, true) + fit.cellMargins : floor,
      ...labels.map((l) => textWidthTwips(l, fit.fontSize, true) + fit.cellMargins),
    );
    for (const cell of c.cells) {
      for (const line of cell.split('\n')) {
        // Why sampled: a 10,000-row table need not be measured whole to know how wide it wants to be.
        preferred = Math.max(preferred, textWidthTwips(line.slice(0, 400), fit.fontSize) + fit.cellMargins);
        for (const w of words(line.slice(0, 400)))
          soft = Math.max(soft, Math.min(total / 3, textWidthTwips(w, fit.fontSize) + fit.cellMargins));
      }
    }
    return { hard, soft: Math.max(hard, soft), preferred: Math.max(preferred, hard, soft) };
  });
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const hard = measured.map((m) => m.hard);
  if (sum(hard) >= total)
    return settle(
      hard.map((h) => (h / sum(hard)) * total),
      total,
    );
  const soft = measured.map((m) => m.soft);
  const min = sum(soft) <= total ? soft : hard;
  const preferred = measured.map((m, i) => Math.max(m.preferred, min[i]!));
  let widths: number[];
  if (sum(preferred) <= total) {
    // Everything fits on one line: share the spare room in proportion to what each column holds.
    const spare = total - sum(preferred);
    widths = preferred.map((p) => p + (p / sum(preferred)) * spare);
  } else {
    const want = preferred.map((p, i) => p - min[i]!);
    const room = total - sum(min);
    widths = min.map((m, i) => m + (sum(want) === 0 ? room / n : (want[i]! / sum(want)) * room));
  }
  return settle(widths, total);
}

/** Whole twips adding up to `total` exactly (the remainder goes to the widest column). */
function settle(widths: number[], total: number): number[] {
  const out = widths.map((w) => Math.max(1, Math.floor(w)));
  const rest = total - out.reduce((a, b) => a + b, 0);
  const widest = out.indexOf(Math.max(...out));
  out[widest] = out[widest]! + rest;
  return out;
}
