import { textColourOn } from '../our-layout/colours.ts';

/**
 * Colouring by severity in a customer's template. The directive tags `{shadeCell}`,
 * `{shadeParagraph}` and `{colorText}` (inside `{#findings}` and `{#severities}`) print an
 * invisible marker holding what to do and the severity's colour from the report's style; after
 * docxtemplater has filled the template, `applySeverityColours` removes each marker and gives the
 * table cell or paragraph it sits in that colour as its shading (with its text in black or white,
 * whichever reads better), or the text after it in its paragraph that colour.
 */

export type ColourDirective = 'cell' | 'paragraph' | 'text';

// Private-use characters that report text never holds (keepXmlCharacters drops them), so a
// marker cannot be forged by a finding's title.
const OPEN = '\uE000';
const CLOSE = '\uE001';

/** The marker a directive tag prints: `colour` is hex without `#`. */
export function colourMarker(directive: ColourDirective, colour: string): string {
  return `${OPEN}${directive}:${colour.replace('#', '').toUpperCase()}${CLOSE}`;
}

const TOKEN = /<w:(tc|p|r)\b[^>]*?(\/?)>|<\/w:(tc|p|r)>|\uE000(cell|paragraph|text):([0-9A-F]{6})\uE001/g;

// The children that must come after the one we set, in each properties element (ECMA-376 order),
// and the container children whose insides must not be searched.
const TC_AFTER_SHD = [
  'noWrap',
  'tcMar',
  'textDirection',
  'tcFitText',
  'vAlign',
  'hideMark',
  'headers',
  'cellIns',
  'cellDel',
  'cellMerge',
  'tcPrChange',
];
const P_AFTER_SHD = [
  'tabs',
  'suppressAutoHyphens',
  'kinsoku',
  'wordWrap',
  'overflowPunct',
  'topLinePunct',
  'autoSpaceDE',
  'autoSpaceDN',
  'bidi',
  'adjustRightInd',
  'snapToGrid',
  'spacing',
  'ind',
  'contextualSpacing',
  'mirrorIndents',
  'suppressOverlap',
  'jc',
  'textDirection',
  'textAlignment',
  'textboxTightWrap',
  'outlineLvl',
  'divId',
  'cnfStyle',
  'rPr',
  'sectPr',
  'pPrChange',
];
const R_AFTER_COLOR = [
  'spacing',
  'w',
  'kern',
  'position',
  'sz',
  'szCs',
  'highlight',
  'u',
  'effect',
  'bdr',
  'shd',
  'fitText',
  'vertAlign',
  'rtl',
  'cs',
  'em',
  'lang',
  'eastAsianLayout',
  'specVanish',
  'oMath',
  'rPrChange',
];
const CONTAINERS = { tcPr: ['tcPrChange'], pPr: ['rPr', 'sectPr', 'pPrChange'], rPr: ['rPrChange'] } as const;

/**
 * `inner` (the children of a properties element) with `element` as its child `name`, replacing
 * one already there, at the place the schema wants it.
 */
function setChild(
  inner: string,
  name: string,
  element: string,
  after: readonly string[],
  containers: readonly string[],
) {
  const containerAt = inner.search(new RegExp(`<w:(${containers.join('|')})\\b`));
  const head = containerAt < 0 ? inner : inner.slice(0, containerAt);
  const tail = containerAt < 0 ? '' : inner.slice(containerAt);
  const without = head.replace(new RegExp(`<w:${name}\\b[^>]*?(?:/>|>[\\s\\S]*?</w:${name}>)`, 'g'), '');
  const rest = without + tail;
  const at = rest.search(new RegExp(`<w:(${after.join('|')})\\b`));
  return at < 0 ? rest + element : rest.slice(0, at) + element + rest.slice(at);
}

const shading = (fill: string) => `<w:shd w:val="clear" w:color="auto" w:fill="${fill}"/>`;
const colour = (c: string) => `<w:color w:val="${c}"/>`;

interface Found {
  cells: Map<number, string>;
  paragraphs: Map<number, string>;
  /** Paragraph start -> the colour and the start of the run holding the marker. */
  textFrom: Map<number, { colour: string; run: number }>;
}

function findDirectives(xml: string): Found {
  const found: Found = { cells: new Map(), paragraphs: new Map(), textFrom: new Map() };
  const stacks: Record<'tc' | 'p' | 'r', number[]> = { tc: [], p: [], r: [] };
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(xml); m !== null; m = TOKEN.exec(xml)) {
    if (m[1] !== undefined) {
      if (m[2] !== '/') stacks[m[1] as 'tc' | 'p' | 'r'].push(m.index);
    } else if (m[3] !== undefined) stacks[m[3] as 'tc' | 'p' | 'r'].pop();
    else {
      const directive = m[4] as ColourDirective;
      const fill = m[5]!;
      const cell = stacks.tc.at(-1);
      const paragraph = stacks.p.at(-1);
      const run = stacks.r.at(-1);
      // Why the fallback: {shadeCell} outside a table shades its paragraph rather than nothing.
      if (directive === 'cell' && cell !== undefined) found.cells.set(cell, fill);
      else if (directive !== 'text' && paragraph !== undefined) found.paragraphs.set(paragraph, fill);
      else if (directive === 'text' && paragraph !== undefined && run !== undefined && !found.textFrom.has(paragraph))
        found.textFrom.set(paragraph, { colour: fill, run });
    }
  }
  return found;
}

const OPEN_BYTES = Buffer.from(OPEN, 'utf8');
const MARKER_BYTES = 3 + 'paragraph:'.length + 6 + 3;

/**
 * A part (UTF-8 XML) with every colour directive carried out and its markers removed. Text
 * colours: runs in a shaded cell or paragraph get black or white for contrast; runs after a
 * `{colorText}` marker in its paragraph get the severity colour.
 *
 * Why on bytes and by region: a 5,000-finding report is tens of megabytes of XML with a few
 * markers per finding; only the cell or paragraph around each marker is decoded and rewritten,
 * the rest is copied as it is.
 */
export function applySeverityColours(part: Uint8Array): Uint8Array {
  const xml = Buffer.from(part.buffer, part.byteOffset, part.byteLength);
  const regions: Array<{ start: number; end: number }> = [];
  for (let at = xml.indexOf(OPEN_BYTES); at >= 0; at = xml.indexOf(OPEN_BYTES, at + 1)) {
    const head = xml.subarray(at + OPEN_BYTES.length, at + MARKER_BYTES).toString('latin1');
    const cell = head.startsWith('cell:') ? enclosing(xml, at, 'tc') : null;
    const region = cell ?? enclosing(xml, at, 'p');
    if (!region) continue;
    const last = regions[regions.length - 1];
    if (last && region.start < last.end) {
      last.start = Math.min(last.start, region.start);
      last.end = Math.max(last.end, region.end);
    } else regions.push(region);
  }
  if (regions.length === 0) return part;
  const out: Uint8Array[] = [];
  let copied = 0;
  for (const r of regions) {
    out.push(xml.subarray(copied, r.start), Buffer.from(rewriteRegion(xml.subarray(r.start, r.end).toString('utf8'))));
    copied = r.end;
  }
  out.push(xml.subarray(copied));
  return new Uint8Array(Buffer.concat(out));
}

/** Whether the byte at `i` ends a tag name (`<w:p>` or `<w:p ...>`, not `<w:pPr>`). */
const endsName = (xml: Buffer, i: number) => xml[i] === 0x3e || xml[i] === 0x20;

/** The start of the `<w:name>` element (not `<w:namePr>` and the like) that opens before `at`, or -1. */
function lastOpenTag(xml: Buffer, name: string, at: number): number {
  const tag = `<w:${name}`;
  for (let i = xml.lastIndexOf(tag, at); i >= 0; i = i === 0 ? -1 : xml.lastIndexOf(tag, i - 1))
    if (endsName(xml, i + tag.length)) return i;
  return -1;
}

/** The whole `<w:tc>` or `<w:p>` element holding position `at` (nested ones of the same name skipped). */
function enclosing(xml: Buffer, at: number, name: 'tc' | 'p'): { start: number; end: number } | null {
  const close = `</w:${name}>`;
  const tag = `<w:${name}`;
  let depth = 0;
  let i = at;
  let start = -1;
  for (;;) {
    const open = lastOpenTag(xml, name, i);
    if (open < 0) return null;
    const closed = xml.lastIndexOf(close, i);
    if (closed > open) {
      depth++;
      i = closed - 1;
    } else if (depth === 0) {
      start = open;
      break;
    } else {
      depth--;
      i = open - 1;
    }
  }
  depth = 0;
  for (let j = at; ; ) {
    const end = xml.indexOf(close, j);
    if (end < 0) return null;
    let open = xml.indexOf(tag, j);
    while (open >= 0 && open < end && !endsName(xml, open + tag.length)) open = xml.indexOf(tag, open + 1);
    if (open >= 0 && open < end) {
      depth++;
      j = open + 1;
    } else if (depth === 0) return { start, end: end + close.length };
    else {
      depth--;
      j = end + close.length;
    }
  }
}

/** One cell or paragraph (whole elements only) with its directives carried out. */
function rewriteRegion(xml: string): string {
  const found = findDirectives(xml);
  const out: string[] = [];
  // The text colour for runs at each open level (null: leave alone).
  const scopes: Array<{ kind: 'tc' | 'p'; colour: string | null }> = [];
  let textFrom: { colour: string; run: number } | null = null;
  let at = 0;
  const props = (name: 'tcPr' | 'pPr' | 'rPr', from: number) => {
    const m = new RegExp(`^<w:${name}\\b[^>]*?(?:/>|>([\\s\\S]*?)</w:${name}>)`).exec(xml.slice(from));
    return m ? { length: m[0].length, inner: m[1] ?? '' } : null;
  };
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(xml); m !== null; m = TOKEN.exec(xml)) {
    out.push(xml.slice(at, m.index));
    at = m.index + m[0].length;
    if (m[4] !== undefined) continue; // the marker itself: dropped
    if (m[3] !== undefined) {
      out.push(m[0]);
      if (m[3] !== 'r') {
        for (let i = scopes.length - 1; i >= 0; i--)
          if (scopes[i]!.kind === m[3]) {
            scopes.length = i;
            break;
          }
        if (m[3] === 'p') textFrom = null;
      }
      continue;
    }
    const kind = m[1] as 'tc' | 'p' | 'r';
    const selfClosing = m[2] === '/';
    if (kind === 'tc' || kind === 'p') {
      const fill = kind === 'tc' ? found.cells.get(m.index) : found.paragraphs.get(m.index);
      if (kind === 'p') textFrom = found.textFrom.get(m.index) ?? null;
      if (fill === undefined || selfClosing) {
        out.push(m[0]);
        if (!selfClosing) scopes.push({ kind, colour: null });
        continue;
      }
      const name = kind === 'tc' ? 'tcPr' : 'pPr';
      const existing = props(name, at);
      const inner = setChild(
        existing?.inner ?? '',
        'shd',
        shading(fill),
        kind === 'tc' ? TC_AFTER_SHD : P_AFTER_SHD,
        CONTAINERS[name],
      );
      out.push(m[0], `<w:${name}>${inner}</w:${name}>`);
      if (existing) at += existing.length;
      TOKEN.lastIndex = at;
      scopes.push({ kind, colour: textColourOn(fill) });
      continue;
    }
    // A run: coloured when it is after a {colorText} marker, or inside a shaded cell or paragraph.
    const shaded = [...scopes].reverse().find((sc) => sc.colour !== null)?.colour ?? null;
    const ink = textFrom !== null && m.index >= textFrom.run ? textFrom.colour : shaded;
    if (ink === null || selfClosing) {
      out.push(m[0]);
      continue;
    }
    const existing = props('rPr', at);
    const inner = setChild(existing?.inner ?? '', 'color', colour(ink), R_AFTER_COLOR, CONTAINERS.rPr);
    out.push(m[0], `<w:rPr>${inner}</w:rPr>`);
    if (existing) at += existing.length;
    TOKEN.lastIndex = at;
  }
  out.push(xml.slice(at));
  return out.join('');
}
