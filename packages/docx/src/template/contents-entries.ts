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

const TOC_INSTRUCTION = /<w:instrText\b[^>]*>\s*TOC\b([^<]*)<\/w:instrText>/;
const FIELD_CHAR = /<w:fldChar\b[^>]*w:fldCharType="(begin|separate|end)"[^>]*\/>/g;

/**
 * `documentXml` with the saved result of its first TOC field replaced by the headings of the
 * document; unchanged when it has no such field (or one this does not understand).
 */
export function fillTableOfContents(documentXml: string, stylesXml: string | null, textWidth: number): string {
  const instr = TOC_INSTRUCTION.exec(documentXml);
  if (!instr) return documentXml;
  // The field's separator and end: the first "separate" after the instruction, and the "end" that
  // closes this field (fields inside its result, such as PAGEREF, open and close their own).
  FIELD_CHAR.lastIndex = instr.index + instr[0].length;
  let separate = -1;
  let end = -1;
  let depth = 0;
  for (let m = FIELD_CHAR.exec(documentXml); m !== null; m = FIELD_CHAR.exec(documentXml)) {
    if (m[1] === 'begin') depth++;
    else if (m[1] === 'separate' && depth === 0 && separate < 0) separate = m.index + m[0].length;
    else if (m[1] === 'end') {
      if (depth === 0) {
        end = m.index;
        break;
      }
      depth--;
    }
  }
  if (separate < 0 || end < 0) return documentXml;
  // Cut after the run holding the separator, and before the run holding the end.
  const resultStart = documentXml.indexOf('</w:r>', separate);
  const resultEnd = Math.max(documentXml.lastIndexOf('<w:r>', end), documentXml.lastIndexOf('<w:r ', end));
  if (resultStart < 0 || resultEnd < 0 || resultEnd < resultStart) return documentXml;
  const cutFrom = resultStart + '</w:r>'.length;

  const styles = readStyles(stylesXml);
  const { from, to } = levelsOf(instr[1]!);
  const tocStyle = new Map<number, string>();
  for (const [id, s] of styles) {
    const level = /^toc (\d)$/.exec(s.name)?.[1];
    if (level) tocStyle.set(Number(level), id);
  }
  const entries: Array<{ level: number; text: string }> = [];
  const scan = (xml: string) => {
    for (const p of xml.matchAll(/<w:p\b[^>]*?(?:\/>|>([\s\S]*?)<\/w:p>)/g)) {
      const body = p[1] ?? '';
      const own = /<w:outlineLvl w:val="(\d)"/.exec(/<w:pPr>[\s\S]*?<\/w:pPr>/.exec(body)?.[0] ?? '')?.[1];
      const styleId = /<w:pStyle w:val="([^"]*)"/.exec(body)?.[1];
      const outline = own !== undefined ? Number(own) : outlineOf(styles, styleId);
      if (outline === null || outline + 1 < from || outline + 1 > to) continue;
      let text = '';
      for (const t of body.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)) text += decode(t[1]!);
      text = text.replace(/\s+/g, ' ').trim();
      if (text !== '') entries.push({ level: outline + 1, text });
    }
  };
  const bodyStart = documentXml.indexOf('<w:body>');
  scan(documentXml.slice(bodyStart < 0 ? 0 : bodyStart, cutFrom));
  scan(documentXml.slice(end));
  if (entries.length === 0) return documentXml.slice(0, cutFrom) + documentXml.slice(resultEnd);

  const entryParagraph = (e: { level: number }) => {
    const style = tocStyle.get(e.level);
    return (
      `<w:p><w:pPr>${style ? `<w:pStyle w:val="${escapeXml(style)}"/>` : ''}` +
      `<w:tabs><w:tab w:val="right" w:leader="dot" w:pos="${textWidth}"/></w:tabs>` +
      `${style ? '' : `<w:ind w:left="${(e.level - 1) * 284}"/>`}</w:pPr>`
    );
  };
  const runOf = (text: string) => `<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r>`;
  let result = runOf(entries[0]!.text);
  // The first entry shares the paragraph of the field's start; each other one gets its own, and the
  // run that ends the field follows the last entry (whatever the saved result looked like).
  for (const e of entries.slice(1)) result += `</w:p>${entryParagraph(e)}${runOf(e.text)}`;
  return documentXml.slice(0, cutFrom) + result + documentXml.slice(resultEnd);
}
