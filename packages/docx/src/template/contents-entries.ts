import { escapeXml } from '../xml-text.ts';

/**
 * The table of contents of a filled-in template, written out. A TOC field shows what was saved
 * in it until something updates it: Word does when it opens the file (`w:updateFields`), but not
 * in Protected View, and LibreOffice and previewers never do. So the field's saved result is
 * replaced by one entry per heading of the filled-in document (without page numbers, which only
 * the layout knows); the field itself stays, and an update replaces the entries as usual.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decode = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, e: string) =>
    e[0] === '#' ? String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : ENTITIES[e]!,
  );

interface StyleInfo {
  basedOn: string | null;
  outline: number | null;
  name: string;
}

function readStyles(stylesXml: string | null): Map<string, StyleInfo> {
  const styles = new Map<string, StyleInfo>();
  for (const m of (stylesXml ?? '').matchAll(/<w:style\b([^>]*)>([\s\S]*?)<\/w:style>/g)) {
    const id = /w:styleId="([^"]*)"/.exec(m[1]!)?.[1];
    if (!id) continue;
    const body = m[2]!;
    const outline = /<w:outlineLvl w:val="(\d)"/.exec(body)?.[1];
    styles.set(id, {
      basedOn: /<w:basedOn w:val="([^"]*)"/.exec(body)?.[1] ?? null,
      outline: outline === undefined ? null : Number(outline),
      name: (/<w:name w:val="([^"]*)"/.exec(body)?.[1] ?? '').toLowerCase(),
    });
  }
  return styles;
}

/** A style's outline level (0 = level 1), following `basedOn`; null when it is body text. */
function outlineOf(styles: Map<string, StyleInfo>, id: string | undefined): number | null {
  for (let depth = 0; id !== undefined && depth < 20; depth++) {
    const s = styles.get(id);
    if (!s) return null;
    if (s.outline !== null) return s.outline < 9 ? s.outline : null;
    id = s.basedOn ?? undefined;
  }
  return null;
}

/** The levels a TOC field lists: its `\o "1-3"` switch, or 1 to 3. */
function levelsOf(instruction: string): { from: number; to: number } {
  const m = /\\o\s+"?(\d)\s*-\s*(\d)"?/.exec(instruction);
  return m ? { from: Number(m[1]), to: Number(m[2]) } : { from: 1, to: 3 };
}

const INSTRUCTION = '<w:instrText';
const FIELD_CHAR = 'w:fldCharType="';

/** The first TOC field's instruction: its switches, and where it ends. */
function findTocInstruction(xml: Buffer): { switches: string; end: number } | null {
  for (let at = xml.indexOf(INSTRUCTION); at >= 0; at = xml.indexOf(INSTRUCTION, at + 1)) {
    const gt = xml.indexOf('>', at);
    const close = xml.indexOf('</w:instrText>', gt);
    if (gt < 0 || close < 0) return null;
    const text = xml.subarray(gt + 1, Math.min(close, gt + 1 + 500)).toString('utf8');
    const m = /^\s*TOC\b([^<]*)$/.exec(text);
    if (m) return { switches: m[1]!, end: close };
  }
  return null;
}

/**
 * A document (UTF-8 XML) with the saved result of its first TOC field replaced by the headings of
 * the document; unchanged when it has no such field (or one this does not understand).
 *
 * Why on bytes: the document of a 5,000-finding report is tens of megabytes; only the headings
 * and the field are decoded.
 */
export function fillTableOfContents(document: Uint8Array, stylesXml: string | null, textWidth: number): Uint8Array {
  const xml = Buffer.from(document.buffer, document.byteOffset, document.byteLength);
  const instr = findTocInstruction(xml);
  if (!instr) return document;
  // The field's separator and end: the first "separate" after the instruction, and the "end" that
  // closes this field (fields inside its result, such as PAGEREF, open and close their own).
  let separate = -1;
  let end = -1;
  let depth = 0;
  for (let at = xml.indexOf(FIELD_CHAR, instr.end); at >= 0; at = xml.indexOf(FIELD_CHAR, at + 1)) {
    const type = xml.subarray(at + FIELD_CHAR.length, at + FIELD_CHAR.length + 8).toString('latin1');
    if (type.startsWith('begin')) depth++;
    else if (type.startsWith('separate') && depth === 0 && separate < 0) separate = at;
    else if (type.startsWith('end')) {
      if (depth === 0) {
        end = at;
        break;
      }
      depth--;
    }
  }
  if (separate < 0 || end < 0) return document;
  // Cut after the run holding the separator, and before the run holding the end.
  const resultStart = xml.indexOf('</w:r>', separate);
  const resultEnd = Math.max(xml.lastIndexOf('<w:r>', end), xml.lastIndexOf('<w:r ', end));
  if (resultStart < 0 || resultEnd < 0 || resultEnd < resultStart) return document;
  const cutFrom = resultStart + '</w:r>'.length;

  const styles = readStyles(stylesXml);
  const { from, to } = levelsOf(instr.switches);
  const tocStyle = new Map<number, string>();
  for (const [id, s] of styles) {
    const level = /^toc (\d)$/.exec(s.name)?.[1];
    if (level) tocStyle.set(Number(level), id);
  }
  // Where headings are: paragraphs with a heading style, or an outline level of their own.
  const heading = [...styles.keys()].filter((id) => {
    const outline = outlineOf(styles, id);
    return outline !== null && outline + 1 >= from && outline + 1 <= to;
  });
  const marks: number[] = [];
  for (const needle of [...heading.map((id) => `<w:pStyle w:val="${id}"/>`), '<w:outlineLvl w:val="'])
    for (let at = xml.indexOf(needle); at >= 0; at = xml.indexOf(needle, at + needle.length))
      if (at < cutFrom || at >= end) marks.push(at);
  marks.sort((a, b) => a - b);
  const entries: Array<{ level: number; text: string }> = [];
  let after = 0;
  for (const at of marks) {
    if (at < after) continue;
    const start = paragraphStart(xml, at);
    const close = xml.indexOf('</w:p>', at);
    if (start < 0 || close < 0) continue;
    after = close;
    const body = xml.subarray(start, close).toString('utf8');
    const properties = /<w:pPr>[\s\S]*?<\/w:pPr>/.exec(body)?.[0] ?? '';
    const own = /<w:outlineLvl w:val="(\d)"/.exec(properties)?.[1];
    const styleId = /<w:pStyle w:val="([^"]*)"/.exec(properties)?.[1];
    const outline = own !== undefined ? Number(own) : outlineOf(styles, styleId);
    if (outline === null || outline + 1 < from || outline + 1 > to) continue;
    let text = '';
    for (const t of body.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)) text += decode(t[1]!);
    text = text.replace(/\s+/g, ' ').trim();
    if (text !== '') entries.push({ level: outline + 1, text });
  }

  const entryParagraph = (e: { level: number }) => {
    const style = tocStyle.get(e.level);
    return (
      `<w:p><w:pPr>${style ? `<w:pStyle w:val="${escapeXml(style)}"/>` : ''}` +
      `<w:tabs><w:tab w:val="right" w:leader="dot" w:pos="${textWidth}"/></w:tabs>` +
      `${style ? '' : `<w:ind w:left="${(e.level - 1) * 284}"/>`}</w:pPr>`
    );
  };
  const runOf = (text: string) => `<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r>`;
  // The first entry shares the paragraph of the field's start; each other one gets its own, and the
  // run that ends the field follows the last entry (whatever the saved result looked like).
  let result = entries.length > 0 ? runOf(entries[0]!.text) : '';
  for (const e of entries.slice(1)) result += `</w:p>${entryParagraph(e)}${runOf(e.text)}`;
  return new Uint8Array(Buffer.concat([xml.subarray(0, cutFrom), Buffer.from(result), xml.subarray(resultEnd)]));
}

/**
 * Where the paragraph holding `at` starts, looking back at most 64 KB (a heading's properties are
 * near its start): `lastIndexOf` alone would scan back to the start of the document whenever one
 * spelling of the tag does not occur, for every heading.
 */
function paragraphStart(xml: Buffer, at: number): number {
  const from = Math.max(0, at - 65_536);
  const window = xml.subarray(from, at);
  const found = Math.max(window.lastIndexOf('<w:p>'), window.lastIndexOf('<w:p '));
  return found < 0 ? -1 : from + found;
}
