import type { WordStyles } from '../wordml/markdown-to-wordml.ts';

/**
 * The named styles Markdown fields are written with in a customer's template, found by their
 * names (as Word shows them), so translated templates with other style ids work too.
 */
export const TEMPLATE_STYLE_NAMES = {
  heading: ['Heading 1', 'Heading 2', 'Heading 3', 'Heading 4', 'Heading 5', 'Heading 6'],
  listBullet: 'List Bullet',
  listNumber: 'List Number',
  code: 'Code',
  caption: 'Caption',
  quote: 'Quote',
  /** The first of these that exists styles Markdown tables. */
  table: ['Report Table', 'Table Grid'],
  inlineCode: 'Code Char',
  hyperlink: 'Hyperlink',
} as const;

/**
 * Styles a template should have; those it lacks are listed by the linter (Markdown then falls back to direct
 * formatting).
 */
export const EXPECTED_STYLES = [
  'Heading 1',
  'Heading 2',
  'Heading 3',
  'List Bullet',
  'List Number',
  'Code',
  'Caption',
  'Quote',
  'Table Grid',
] as const;

interface StyleEntry {
  id: string;
  type: string;
}

function readStyles(stylesXml: string | null): Map<string, StyleEntry> {
  const byName = new Map<string, StyleEntry>();
  if (!stylesXml) return byName;
  for (const m of stylesXml.matchAll(/<w:style\b([^>]*)>([\s\S]*?)<\/w:style>/g)) {
    const id = /w:styleId="([^"]*)"/.exec(m[1]!)?.[1];
    const type = /w:type="([^"]*)"/.exec(m[1]!)?.[1] ?? 'paragraph';
    const name = /<w:name w:val="([^"]*)"/.exec(m[2]!)?.[1];
    if (id && name && !byName.has(name.toLowerCase())) byName.set(name.toLowerCase(), { id, type });
  }
  return byName;
}

export interface TemplateStyles {
  styles: WordStyles;
  /** Names from EXPECTED_STYLES the template lacks. */
  missing: string[];
}

export function templateStyles(stylesXml: string | null): TemplateStyles {
  const all = readStyles(stylesXml);
  const find = (name: string, type: string) => {
    const s = all.get(name.toLowerCase());
    return s && s.type === type ? s.id : null;
  };
  const table = TEMPLATE_STYLE_NAMES.table.map((n) => find(n, 'table')).find((id) => id !== null) ?? null;
  const styles: WordStyles = {
    heading: TEMPLATE_STYLE_NAMES.heading.map((n) => find(n, 'paragraph')),
    listBullet: find(TEMPLATE_STYLE_NAMES.listBullet, 'paragraph'),
    listNumber: find(TEMPLATE_STYLE_NAMES.listNumber, 'paragraph'),
    code: find(TEMPLATE_STYLE_NAMES.code, 'paragraph'),
    caption: find(TEMPLATE_STYLE_NAMES.caption, 'paragraph'),
    quote: find(TEMPLATE_STYLE_NAMES.quote, 'paragraph'),
    table,
    tableText: null,
    tableHeaderText: null,
    placeholder: null,
    hyperlink: find(TEMPLATE_STYLE_NAMES.hyperlink, 'character'),
    inlineCode: find(TEMPLATE_STYLE_NAMES.inlineCode, 'character'),
  };
  const missing = EXPECTED_STYLES.filter((name) => {
    if (name === 'Table Grid') return table === null;
    return find(name, 'paragraph') === null;
  });
  return { styles, missing };
}

/** Width between the margins of the document's last section, in twips (A4 with 2.5 cm margins when unknown). */
export function templateTextWidth(documentXml: string): number {
  const sect = documentXml.lastIndexOf('<w:sectPr');
  const part = sect >= 0 ? documentXml.slice(sect) : '';
  const width = Number(/<w:pgSz\b[^>]*w:w="(\d+)"/.exec(part)?.[1] ?? 11906);
  const left = Number(/<w:pgMar\b[^>]*w:left="(-?\d+)"/.exec(part)?.[1] ?? 1417);
  const right = Number(/<w:pgMar\b[^>]*w:right="(-?\d+)"/.exec(part)?.[1] ?? 1417);
  const text = width - left - right;
  return Number.isFinite(text) && text > 1440 ? text : 9072;
}

/** Height between the margins of the document's last section, in twips (A4 with 2.5 cm margins when unknown). */
export function templateTextHeight(documentXml: string): number {
  const sect = documentXml.lastIndexOf('<w:sectPr');
  const part = sect >= 0 ? documentXml.slice(sect) : '';
  const height = Number(/<w:pgSz\b[^>]*w:h="(\d+)"/.exec(part)?.[1] ?? 16838);
  const top = Math.abs(Number(/<w:pgMar\b[^>]*w:top="(-?\d+)"/.exec(part)?.[1] ?? 1417));
  const bottom = Math.abs(Number(/<w:pgMar\b[^>]*w:bottom="(-?\d+)"/.exec(part)?.[1] ?? 1417));
  const text = height - top - bottom;
  return Number.isFinite(text) && text > 1440 ? text : 14004;
}
