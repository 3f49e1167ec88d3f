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

/** Whether a part holds any marker (most do not: the rewrite is skipped). */
export function hasColourMarkers(xml: string): boolean {
  return xml.includes(OPEN);
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

/**
 * A part with every colour directive carried out and its markers removed. Text colours: runs in a
 * shaded cell or paragraph get black or white for contrast; runs after a `{colorText}` marker in
 * its paragraph get the severity colour.
 */
export function applySeverityColours(xml: string): string {
  if (!hasColourMarkers(xml)) return xml;
  const found = findDirectives(xml);
  const out: string[] = [];
  // The text colour for runs at each open level (null: leave alone).
  const scopes: Array<{ kind: 'tc' | 'p'; colour: string | null }> = [];
  let textFrom: { colour: string; run: number } | null = null;
  let at = 0;
  const props = (name: 'tcPr' | 'pPr' | 'rPr', from: number) => {
    const m = new RegExp(`^<w:${name}\\b[^>]*?(?:/>|>([\\s\\S]*?)</w:${name}>)`).exec(xml.slice(from, from + 20_000));
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
    const shaded = [...scopes].reverse().find((s) => s.colour !== null)?.colour ?? null;
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
