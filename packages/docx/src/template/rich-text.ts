import { inlineText, type Block } from '../markdown-blocks.ts';
import { markdownToWordml, type WordmlContext } from '../wordml/markdown-to-wordml.ts';
import { once } from './lazy-data.ts';

/** Whether Markdown may hold an image at all: every image, inline or reference style, starts with `![`. */
export const mayHoldImage = (markdown: string) => markdown.includes('![');

/** Plain text of Markdown, for the `...Text` tags: one paragraph per line, list items and cells as text. */
export function markdownText(blocks: readonly Block[]): string {
  const lines: string[] = [];
  const walk = (bs: readonly Block[], indent: string) => {
    for (const b of bs) {
      if (b.kind === 'heading' || b.kind === 'paragraph') lines.push(indent + inlineText(b.inlines));
      else if (b.kind === 'code') lines.push(b.text);
      else if (b.kind === 'list')
        b.items.forEach((item, i) => {
          const mark = b.ordered ? `${b.start + i}. ` : '• ';
          const before = lines.length;
          walk(item, `${indent}  `);
          if (lines.length > before) lines[before] = indent + mark + lines[before]!.trimStart();
        });
      else if (b.kind === 'quote') walk(b.blocks, indent);
      else if (b.kind === 'table')
        for (const r of [b.header, ...b.rows]) lines.push(r.map((c) => inlineText(c)).join(' | '));
      else if (b.kind === 'figure') lines.push(b.image.alt);
    }
  };
  walk(blocks, '');
  return lines.join('\n');
}

/** Evidence images a Markdown text draws as figures (so the evidence list after it leaves them out). */
function addFigures(blocks: readonly Block[], into: Set<string>): void {
  for (const b of blocks) {
    if (b.kind === 'figure') {
      if (b.image.evidence) into.add(b.image.evidence.sha256);
    } else if (b.kind === 'list') for (const item of b.items) addFigures(item, into);
    else if (b.kind === 'quote') addFigures(b.blocks, into);
  }
}

/** A Markdown text as a template shows it: as paragraphs, as plain text, and the images it draws. */
export interface RichText {
  xml(): string;
  text(): string;
  /** Adds the evidence images it draws as figures, when the template shows it as paragraphs. */
  figures(into: Set<string>): void;
}

export interface RichTextOptions {
  ctx: WordmlContext;
  parse: (markdown: string) => Block[];
  raw: (xml: string) => string;
  uses: (name: string) => boolean;
}

/**
 * A Markdown field as paragraphs (tag `xmlTag`) and as plain text (`textTag`), each built on first
 * use. It is parsed once, when the first of them is read; the parse is let go as soon as every form
 * the template uses is built (what it draws as figures is noted first).
 */
export function richText(
  markdown: string,
  baseHeading: number,
  xmlTag: string,
  textTag: string,
  { ctx, parse, raw, uses }: RichTextOptions,
): RichText {
  let blocks: Block[] | null = null;
  let figures: Set<string> | null = null;
  let xmlLeft = uses(xmlTag);
  let textLeft = uses(textTag);
  const parsed = () => {
    if (blocks === null) {
      blocks = parse(markdown);
      if (figures === null && mayHoldImage(markdown)) {
        figures = new Set();
        addFigures(blocks, figures);
      }
    }
    return blocks;
  };
  const done = <T>(value: T): T => {
    if (!xmlLeft && !textLeft) blocks = null;
    return value;
  };
  return {
    xml: once(() => {
      const b = parsed();
      xmlLeft = false;
      return done(b.length === 0 ? '' : raw(markdownToWordml(b, ctx, { baseHeading })));
    }),
    text: once(() => {
      const b = parsed();
      textLeft = false;
      return done(markdownText(b));
    }),
    figures: (into) => {
      if (!uses(xmlTag) || !mayHoldImage(markdown)) return;
      if (figures === null) done(parsed());
      for (const sha of figures ?? []) into.add(sha);
    },
  };
}
