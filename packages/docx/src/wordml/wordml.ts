import { escapeXml } from '../xml-text.ts';

/**
 * WordprocessingML written as strings: the few elements a report needs, with their children in
 * the order the schema requires (Word refuses a document whose properties are out of order).
 * Building strings instead of an object tree is what makes 5,000-finding reports take seconds.
 */

export const NS = {
  w: 'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  r: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  wp: 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing',
  a: 'http://schemas.openxmlformats.org/drawingml/2006/main',
  pic: 'http://schemas.openxmlformats.org/drawingml/2006/picture',
} as const;

export interface RunProps {
  style?: string | null;
  font?: string;
  bold?: boolean;
  italic?: boolean;
  caps?: boolean;
  strike?: boolean;
  color?: string;
  size?: number;
  shading?: string;
  underline?: boolean;
  rtl?: boolean;
}

export function runProps(p: RunProps): string {
  let s = '';
  if (p.style) s += `<w:rStyle w:val="${escapeXml(p.style)}"/>`;
  if (p.font) {
    const f = escapeXml(p.font);
    s += `<w:rFonts w:ascii="${f}" w:hAnsi="${f}" w:cs="${f}" w:eastAsia="${f}"/>`;
  }
  if (p.bold) s += '<w:b/><w:bCs/>';
  if (p.italic) s += '<w:i/><w:iCs/>';
  if (p.caps) s += '<w:caps/>';
  if (p.strike) s += '<w:strike/>';
  if (p.color) s += `<w:color w:val="${p.color}"/>`;
  if (p.size) s += `<w:sz w:val="${p.size}"/><w:szCs w:val="${p.size}"/>`;
  if (p.underline) s += '<w:u w:val="single"/>';
  if (p.shading) s += `<w:shd w:val="clear" w:color="auto" w:fill="${p.shading}"/>`;
  if (p.rtl) s += '<w:rtl/>';
  return s;
}

/** A run of text; line feeds become line breaks and tabs become tab characters. */
export function run(text: string, props: RunProps | string = ''): string {
  const rPr = typeof props === 'string' ? props : runProps(props);
  const head = rPr ? `<w:r><w:rPr>${rPr}</w:rPr>` : '<w:r>';
  if (!/[\n\t\r]/.test(text)) return `${head}<w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r>`;
  let body = '';
  const parts = text.replace(/\r\n?/g, '\n').split(/(\n|\t)/);
  for (const part of parts) {
    if (part === '\n') body += '<w:br/>';
    else if (part === '\t') body += '<w:tab/>';
    else if (part !== '') body += `<w:t xml:space="preserve">${escapeXml(part)}</w:t>`;
  }
  return `${head}${body}</w:r>`;
}

export interface Border {
  color: string;
  size: number;
  space?: number;
  style?: string;
}

export interface ParagraphProps {
  style?: string | null;
  keepNext?: boolean;
  keepLines?: boolean;
  pageBreakBefore?: boolean;
  numbering?: { numId: number; level: number };
  borders?: { top?: Border; left?: Border; bottom?: Border; right?: Border };
  shading?: string;
  tabs?: Array<{ kind: 'left' | 'right' | 'center'; pos: number; leader?: 'dot' }>;
  bidi?: boolean;
  spacing?: { before?: number; after?: number; line?: number };
  indent?: { left?: number; right?: number; hanging?: number };
  align?: 'left' | 'center' | 'right' | 'both';
  /** Run properties of the paragraph mark (used to give empty paragraphs a size). */
  markRun?: string;
}

function border(name: string, b: Border): string {
  return `<w:${name} w:val="${b.style ?? 'single'}" w:sz="${b.size}" w:space="${b.space ?? 0}" w:color="${b.color}"/>`;
}

export function paragraphProps(p: ParagraphProps): string {
  let s = '';
  if (p.style) s += `<w:pStyle w:val="${escapeXml(p.style)}"/>`;
  if (p.keepNext) s += '<w:keepNext/>';
  if (p.keepLines) s += '<w:keepLines/>';
  if (p.pageBreakBefore) s += '<w:pageBreakBefore/>';
  if (p.numbering)
    s += `<w:numPr><w:ilvl w:val="${p.numbering.level}"/><w:numId w:val="${p.numbering.numId}"/></w:numPr>`;
  if (p.borders) {
    const b = p.borders;
    s += `<w:pBdr>${b.top ? border('top', b.top) : ''}${b.left ? border('left', b.left) : ''}${b.bottom ? border('bottom', b.bottom) : ''}${b.right ? border('right', b.right) : ''}</w:pBdr>`;
  }
  if (p.shading) s += `<w:shd w:val="clear" w:color="auto" w:fill="${p.shading}"/>`;
  if (p.tabs)
    s += `<w:tabs>${p.tabs.map((t) => `<w:tab w:val="${t.kind}"${t.leader ? ` w:leader="${t.leader}"` : ''} w:pos="${t.pos}"/>`).join('')}</w:tabs>`;
  if (p.bidi) s += '<w:bidi/>';
  if (p.spacing) {
    const sp = p.spacing;
    s += `<w:spacing${sp.before !== undefined ? ` w:before="${sp.before}"` : ''}${sp.after !== undefined ? ` w:after="${sp.after}"` : ''}${sp.line !== undefined ? ` w:line="${sp.line}" w:lineRule="auto"` : ''}/>`;
  }
  if (p.indent) {
    const i = p.indent;
    s += `<w:ind${i.left !== undefined ? ` w:left="${i.left}"` : ''}${i.right !== undefined ? ` w:right="${i.right}"` : ''}${i.hanging !== undefined ? ` w:hanging="${i.hanging}"` : ''}/>`;
  }
  if (p.align) s += `<w:jc w:val="${p.align}"/>`;
  if (p.markRun) s += `<w:rPr>${p.markRun}</w:rPr>`;
  return s;
}

export function paragraph(props: ParagraphProps | null, content: string): string {
  const pPr = props ? paragraphProps(props) : '';
  return `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ''}${content}</w:p>`;
}

export function hyperlink(rId: string, content: string): string {
  return `<w:hyperlink xmlns:r="${NS.r}" r:id="${rId}" w:history="1">${content}</w:hyperlink>`;
}

export function internalLink(anchor: string, content: string): string {
  return `<w:hyperlink w:anchor="${escapeXml(anchor)}" w:history="1">${content}</w:hyperlink>`;
}

export function bookmark(id: number, name: string, content: string): string {
  return `<w:bookmarkStart w:id="${id}" w:name="${escapeXml(name)}"/>${content}<w:bookmarkEnd w:id="${id}"/>`;
}

const EMU_PER_PIXEL = 9525;

/** A picture in the line, `width` x `height` pixels at 96 per inch. */
export function drawing(
  rId: string,
  docPrId: number,
  width: number,
  height: number,
  name: string,
  description: string,
): string {
  const cx = Math.round(width * EMU_PER_PIXEL);
  const cy = Math.round(height * EMU_PER_PIXEL);
  const n = escapeXml(name);
  const d = escapeXml(description.length > 1000 ? `${description.slice(0, 1000)}…` : description);
  return (
    `<w:r><w:drawing><wp:inline xmlns:wp="${NS.wp}" distT="0" distB="0" distL="0" ` +
    `distR="0"><wp:extent cx="${cx}" cy="${cy}"/><wp:effectExtent l="0" t="0" r="0" ` +
    `b="0"/>` +
    (`<wp:docPr id="${docPrId}" name="${n}" ` +
      `descr="${d}"/><wp:cNvGraphicFramePr><a:graphicFrameLocks xmlns:a="${NS.a}" ` +
      `noChangeAspect="1"/></wp:cNvGraphicFramePr>`) +
    (`<a:graphic xmlns:a="${NS.a}"><a:graphicData uri="${NS.pic}"><pic:pic ` +
      `xmlns:pic="${NS.pic}"><pic:nvPicPr><pic:cNvPr id="${docPrId}" ` +
      `name="${n}"/><pic:cNvPicPr/></pic:nvPicPr>`) +
    `<pic:blipFill><a:blip xmlns:r="${NS.r}" r:embed="${rId}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    (`<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" ` +
      `cy="${cy}"/></a:xfrm><a:prstGeom ` +
      `prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`)
  );
}

export interface TableCellSpec {
  content: string;
  fill?: string;
}

export interface TableSpec {
  widths: number[];
  style?: string | null;
  header?: TableCellSpec[];
  rows: TableCellSpec[][];
  /** Grid lines when the table has no style of its own (colour), or none. */
  grid?: string | null;
  cellMargin?: { top: number; bottom: number; left: number; right: number };
  rtl?: boolean;
}

export function table(t: TableSpec): string {
  const total = t.widths.reduce((a, b) => a + b, 0);
  let s = '<w:tbl><w:tblPr>';
  if (t.style) s += `<w:tblStyle w:val="${escapeXml(t.style)}"/>`;
  if (t.rtl) s += '<w:bidiVisual/>';
  s += `<w:tblW w:w="${total}" w:type="dxa"/>`;
  if (t.grid) {
    const g = `w:val="single" w:sz="4" w:space="0" w:color="${t.grid}"`;
    s +=
      `<w:tblBorders><w:top ${g}/><w:left ${g}/><w:bottom ${g}/><w:right ` +
      `${g}/><w:insideH ${g}/><w:insideV ${g}/></w:tblBorders>`;
  } else if (t.grid === null) {
    s +=
      '<w:tblBorders><w:top w:val="nil"/><w:left w:val="nil"/><w:bottom ' +
      'w:val="nil"/><w:right w:val="nil"/><w:insideH w:val="nil"/><w:insideV ' +
      'w:val="nil"/></w:tblBorders>';
  }
  s += '<w:tblLayout w:type="fixed"/>';
  const m = t.cellMargin;
  if (m)
    s +=
      `<w:tblCellMar><w:top w:w="${m.top}" w:type="dxa"/><w:left w:w="${m.left}" ` +
      `w:type="dxa"/><w:bottom w:w="${m.bottom}" w:type="dxa"/><w:right ` +
      `w:w="${m.right}" w:type="dxa"/></w:tblCellMar>`;
  s +=
    `<w:tblLook w:val="04A0" w:firstRow="${t.header ? 1 : 0}" w:lastRow="0" ` +
    `w:firstColumn="0" w:lastColumn="0" w:noHBand="0" ` +
    `w:noVBand="1"/></w:tblPr><w:tblGrid>`;
  for (const w of t.widths) s += `<w:gridCol w:w="${w}"/>`;
  s += '</w:tblGrid>';
  const row = (cells: TableCellSpec[], header: boolean) => {
    let r = `<w:tr><w:trPr><w:cantSplit/>${header ? '<w:tblHeader/>' : ''}</w:trPr>`;
    t.widths.forEach((w, i) => {
      const c = cells[i] ?? { content: '' };
      r +=
        `<w:tc><w:tcPr><w:tcW w:w="${w}" ` +
        `w:type="dxa"/>${c.fill ? `<w:shd w:val="clear" w:color="auto" w:fill="${c.fill}"/>` : ''}</w:tcPr>${c.content || '<w:p/>'}</w:tc>`;
    });
    return `${r}</w:tr>`;
  };
  const parts: string[] = [s];
  if (t.header) parts.push(row(t.header, true));
  for (const r of t.rows) parts.push(row(r, false));
  parts.push('</w:tbl>');
  return parts.join('');
}
