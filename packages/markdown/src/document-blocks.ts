import markdownIt from 'markdown-it';
import { parseEvidenceTarget, type EvidenceTarget } from './evidence-target.ts';

export type { EvidenceTarget } from './evidence-target.ts';

/**
 * The Markdown dialect of the documents: a small tree of blocks and styled text, read once with
 * markdown-it (CommonMark + tables + strikethrough). Both DOCX renderers draw this tree, and so
 * does the workspace's preview in the browser, so what a tester previews is what the client reads.
 * Raw HTML is off, so `<script>` or `<w:p>` in a field is plain text; anything the tree has no
 * shape for becomes text too. Nothing is dropped.
 */

export interface TextMarks {
  bold?: boolean;
  italic?: boolean;
  strike?: boolean;
  code?: boolean;
}

export type Inline =
  | { kind: 'text'; text: string; marks: TextMarks; link?: string }
  | { kind: 'break' }
  /** An image: `evidence` when its target is `evidence:sha256:<hex>`, otherwise only its text is shown. */
  | { kind: 'image'; alt: string; src: string; title: string | null; evidence: EvidenceTarget | null };

export type Block =
  | { kind: 'heading'; level: number; inlines: Inline[] }
  | { kind: 'paragraph'; inlines: Inline[] }
  | { kind: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { kind: 'code'; language: string; text: string }
  | { kind: 'table'; align: Array<'left' | 'center' | 'right' | null>; header: Inline[][]; rows: Inline[][][] }
  | { kind: 'quote'; blocks: Block[] }
  | { kind: 'rule' }
  /** An image alone in its paragraph: drawn as a figure with its caption. */
  | { kind: 'figure'; image: Extract<Inline, { kind: 'image' }> };

type Token = ReturnType<ReturnType<typeof markdownIt>['parse']>[number];

const parser = markdownIt('default', { html: false, linkify: true, typographer: false });
// Why: only links with a scheme (https://, mailto:) become hyperlinks; guessing links in bare words is slow and wrong
// for hosts in evidence.
parser.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });

/** The blocks of a Markdown text. Never throws for any input. */
export function parseMarkdownBlocks(markdown: string): Block[] {
  if (markdown.trim() === '') return [];
  const tokens = parser.parse(markdown, {});
  const reader = { tokens, at: 0 };
  return readBlocks(reader, null);
}

interface TokenReader {
  tokens: Token[];
  at: number;
}

/** Reads blocks until the token of type `until` (which is consumed) or the end. */
function readBlocks(r: TokenReader, until: string | null): Block[] {
  const blocks: Block[] = [];
  while (r.at < r.tokens.length) {
    const t = r.tokens[r.at++]!;
    if (until !== null && t.type === until) return blocks;
    switch (t.type) {
      case 'heading_open': {
        const inline = r.tokens[r.at++]!;
        r.at++; // heading_close
        blocks.push({
          kind: 'heading',
          level: Number(t.tag.slice(1)) || 1,
          inlines: readInlines(inline.children ?? []),
        });
        break;
      }
      case 'paragraph_open': {
        const inline = r.tokens[r.at++]!;
        r.at++; // paragraph_close
        pushParagraph(blocks, readInlines(inline.children ?? []));
        break;
      }
      case 'bullet_list_open':
      case 'ordered_list_open': {
        const ordered = t.type === 'ordered_list_open';
        const start = ordered ? Number(t.attrGet('start') ?? 1) : 1;
        const items: Block[][] = [];
        const close = ordered ? 'ordered_list_close' : 'bullet_list_close';
        while (r.at < r.tokens.length) {
          const item = r.tokens[r.at++]!;
          if (item.type === close) break;
          if (item.type === 'list_item_open') items.push(readBlocks(r, 'list_item_close'));
        }
        blocks.push({ kind: 'list', ordered, start: Number.isFinite(start) ? start : 1, items });
        break;
      }
      case 'blockquote_open':
        blocks.push({ kind: 'quote', blocks: readBlocks(r, 'blockquote_close') });
        break;
      case 'fence':
      case 'code_block':
        blocks.push({
          kind: 'code',
          language: t.info.trim().split(/\s+/)[0] ?? '',
          text: t.content.replace(/\n$/, ''),
        });
        break;
      case 'hr':
        blocks.push({ kind: 'rule' });
        break;
      case 'table_open':
        blocks.push(readTable(r));
        break;
      case 'inline':
        pushParagraph(blocks, readInlines(t.children ?? []));
        break;
      default:
        // Why: a token kind this reader has no shape for (a plugin's, or HTML if it were ever on)
        // still shows its text rather than vanishing.
        if (t.content) blocks.push({ kind: 'paragraph', inlines: [{ kind: 'text', text: t.content, marks: {} }] });
    }
  }
  return blocks;
}

/** A paragraph whose only content is images becomes figures (captioned); mixed content stays a paragraph. */
function pushParagraph(blocks: Block[], inlines: Inline[]): void {
  const images = inlines.filter((i) => i.kind === 'image');
  if (
    images.length > 0 &&
    inlines.every((i) => i.kind === 'image' || i.kind === 'break' || (i.kind === 'text' && i.text.trim() === ''))
  ) {
    for (const image of images) blocks.push({ kind: 'figure', image: image as Extract<Inline, { kind: 'image' }> });
    return;
  }
  blocks.push({ kind: 'paragraph', inlines });
}

function readTable(r: TokenReader): Block {
  const align: Array<'left' | 'center' | 'right' | null> = [];
  const header: Inline[][] = [];
  const rows: Inline[][][] = [];
  let row: Inline[][] | null = null;
  let inHead = false;
  while (r.at < r.tokens.length) {
    const t = r.tokens[r.at++]!;
    if (t.type === 'table_close') break;
    if (t.type === 'thead_open') inHead = true;
    else if (t.type === 'thead_close') inHead = false;
    else if (t.type === 'tr_open') row = [];
    else if (t.type === 'tr_close') {
      if (row && !inHead) rows.push(row);
      row = null;
    } else if (t.type === 'th_open' || t.type === 'td_open') {
      const style = String(t.attrGet('style') ?? '');
      const a = /text-align:(left|center|right)/.exec(style)?.[1] as 'left' | 'center' | 'right' | undefined;
      const inline = r.tokens[r.at]!.type === 'inline' ? r.tokens[r.at++]! : null;
      const cell = inline ? readInlines(inline.children ?? []) : [];
      if (inHead) {
        header.push(cell);
        align.push(a ?? null);
      } else row?.push(cell);
    }
  }
  return { kind: 'table', align, header, rows };
}

function readInlines(children: Token[]): Inline[] {
  const out: Inline[] = [];
  const marks: TextMarks = {};
  // Each open link: its hyperlink target, or null with the target to show as text after it.
  const links: Array<{ href: string | null; shown: string }> = [];
  const push = (text: string, extra: TextMarks = {}) => {
    if (text === '') return;
    const link = links.length > 0 ? links[links.length - 1]!.href : null;
    const item: Inline = { kind: 'text', text, marks: { ...marks, ...extra } };
    if (link) item.link = link;
    // Why: markdown-it splits text at every special character; merging neighbours with the same
    // look keeps the run count (and the DOCX) small.
    const last = out[out.length - 1];
    if (last?.kind === 'text' && last.link === item.link && sameMarks(last.marks, item.marks)) last.text += text;
    else out.push(item);
  };
  for (let i = 0; i < children.length; i++) {
    const t = children[i]!;
    switch (t.type) {
      case 'text':
        push(t.content);
        break;
      case 'code_inline':
        push(t.content, { code: true });
        break;
      case 'softbreak':
        push(' ');
        break;
      case 'hardbreak':
        out.push({ kind: 'break' });
        break;
      case 'strong_open':
        marks.bold = true;
        break;
      case 'strong_close':
        delete marks.bold;
        break;
      case 'em_open':
        marks.italic = true;
        break;
      case 'em_close':
        delete marks.italic;
        break;
      case 's_open':
        marks.strike = true;
        break;
      case 's_close':
        delete marks.strike;
        break;
      case 'link_open': {
        const href = String(t.attrGet('href') ?? '');
        links.push(isHyperlinkTarget(href) ? { href, shown: '' } : { href: null, shown: href });
        break;
      }
      case 'link_close': {
        const closed = links.pop();
        // Why: a link the document cannot open (relative, other schemes) keeps its target as text.
        if (closed && closed.href === null && closed.shown !== '') push(` (${closed.shown})`);
        break;
      }
      case 'image': {
        const src = String(t.attrGet('src') ?? '');
        const alt = (t.children ?? []).map((c) => c.content).join('') || t.content;
        out.push({
          kind: 'image',
          alt,
          src,
          title: t.attrGet('title') === null ? null : String(t.attrGet('title')),
          evidence: parseEvidenceTarget(src),
        });
        break;
      }
      default:
        push(t.content);
    }
  }
  return out;
}

function sameMarks(a: TextMarks, b: TextMarks): boolean {
  return !!a.bold === !!b.bold && !!a.italic === !!b.italic && !!a.strike === !!b.strike && !!a.code === !!b.code;
}

/** Only web and mail links become hyperlinks in a document a client opens; others stay text. */
export function isHyperlinkTarget(url: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(url) && url.length <= 2048;
}

/** The plain text of some inlines (captions, TOC entries, table cells in plain renderers). */
export function inlineText(inlines: readonly Inline[]): string {
  let s = '';
  for (const i of inlines) s += i.kind === 'text' ? i.text : i.kind === 'break' ? '\n' : i.alt;
  return s;
}

/** The deepest and shallowest heading levels used in some blocks (top level only). */
export function topHeadingLevel(blocks: readonly Block[]): number {
  let min = 7;
  for (const b of blocks) if (b.kind === 'heading' && b.level < min) min = b.level;
  return min === 7 ? 1 : min;
}
