import type { TemplateProblem } from '../invalid-template-error.ts';
import { partParagraphs, type PartParagraphs } from './template-paragraphs.ts';

/** A tag as docxtemplater's inspection gives it (and as this scan builds it). */
export interface TagPart {
  type: string;
  value: string;
  module?: string;
  inverted?: boolean;
  offset?: number | number[];
  subparsed?: TagPart[];
}

/**
 * Reads the tags of a template's parts the way docxtemplater does (braces in the text of the
 * part, across runs), but never stops at the first problem: every unopened or unclosed brace,
 * every loop closed by another name or never closed, every raw tag that is not alone in its
 * paragraph is listed, with where it is (the part, the paragraph's number and its text), and the
 * tags are returned as a tree for the name and scope checks. It also recognises templates written
 * for other tools (Jinja2 as Ghostwriter uses it, expression filters as pwndoc-ng uses them) and
 * says so once instead of once per tag.
 */

/** Where a problem is: which part, which paragraph of it (1-based), and the text around the spot. */
export interface TemplateLocation {
  part: string;
  paragraphNumber: number;
  text: string;
}

export interface ScannedPart {
  file: string;
  /** Tags as docxtemplater's inspection would give them (placeholders with their loops' children). */
  tags: TagPart[];
  /** The location of a text offset of this part. */
  locate(offset: number): TemplateLocation;
}

export type ForeignSyntax = 'jinja' | 'expressions';

export interface TemplateScan {
  parts: ScannedPart[];
  problems: TemplateProblem[];
  /** Set when the template is written for another tool; the other tag checks are then skipped for its tags. */
  foreign: ForeignSyntax | null;
}

/** The parts docxtemplater fills: the body, headers, footers, footnotes and endnotes. */
export const TEMPLATED_PART = /^word\/(document|header\d*|footer\d*|footnotes|endnotes)\.xml$/;

export function partLabel(file: string): string {
  const m = /^word\/(document|header|footer|footnotes|endnotes)(\d*)\.xml$/.exec(file);
  if (!m) return file;
  if (m[1] === 'document') return 'body';
  return `${m[1]} (${file.slice('word/'.length)})`;
}

/** A long paragraph is shown this many characters either side of the spot. */
const AROUND = 60;

function locator(file: string, paragraphs: PartParagraphs): (offset: number) => TemplateLocation {
  return (offset) => {
    let lo = 0;
    let hi = paragraphs.starts.length - 1;
    let found = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (paragraphs.starts[mid]! <= offset) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    // Why skip empty ones: several paragraphs start at the same offset when some are empty.
    while (
      found < paragraphs.texts.length - 1 &&
      paragraphs.texts[found] === '' &&
      paragraphs.starts[found + 1] === paragraphs.starts[found]
    )
      found++;
    const text = paragraphs.texts[found] ?? '';
    if (text.length <= 2 * AROUND) return { part: partLabel(file), paragraphNumber: found + 1, text: text.trim() };
    const at = offset - (paragraphs.starts[found] ?? 0);
    const from = Math.max(0, at - AROUND);
    const to = Math.min(text.length, at + AROUND);
    const around = `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
    return { part: partLabel(file), paragraphNumber: found + 1, text: around.trim() };
  };
}

/** A problem at a place. */
export function problemAt(tag: string | null, location: TemplateLocation, message: string): TemplateProblem {
  return {
    tag,
    message,
    paragraph: location.text,
    part: location.part,
    paragraphNumber: location.paragraphNumber,
  };
}

interface RawTag {
  content: string;
  offset: number;
}

/** `{` ... `}` in the text of a part, with each stray brace as a problem. */
function lexTags(text: string, locate: (offset: number) => TemplateLocation, problems: TemplateProblem[]): RawTag[] {
  const tags: RawTag[] = [];
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') {
      if (open >= 0)
        problems.push(
          problemAt(
            text.slice(open + 1, i),
            locate(open),
            `this tag is not closed: "{${text.slice(open + 1, i)}" has no "}" before the next "{"`,
          ),
        );
      open = i;
    } else if (c === '}') {
      if (open < 0) problems.push(problemAt(null, locate(i), 'a "}" closes no tag: there is no "{" before it'));
      else tags.push({ content: text.slice(open + 1, i), offset: open });
      open = -1;
    }
  }
  if (open >= 0)
    problems.push(
      problemAt(text.slice(open + 1, open + 40), locate(open), 'this tag is not closed: there is no "}" after it'),
    );
  return tags;
}

const JINJA = /\{\{|\{%|%\}|\}\}/;
/** A tag that is an expression rather than a name: a filter, a comparison, a call, an image module tag. */
const EXPRESSION = /\||==|!=|&&|\|\||\(|^\s*%|^[#^/]?\s*\$/;

/**
 * Scans the templated parts of a package. `files` are the package's parts (already checked for
 * safety).
 */
export function scanTemplate(files: Map<string, Uint8Array>): TemplateScan {
  const problems: TemplateProblem[] = [];
  const parts: ScannedPart[] = [];
  const decoded = [...files]
    .filter(([name]) => TEMPLATED_PART.test(name))
    .sort(([a], [b]) => (a === 'word/document.xml' ? -1 : b === 'word/document.xml' ? 1 : a.localeCompare(b)))
    .map(([file, bytes]) => {
      const paragraphs = partParagraphs(new TextDecoder().decode(bytes));
      return { file, paragraphs, text: paragraphs.texts.join(''), locate: locator(file, paragraphs) };
    });

  // Jinja2 first: its double braces would otherwise read as dozens of broken tags.
  const jinja = decoded.flatMap((d) => {
    const m = JINJA.exec(d.text);
    return m ? [{ d, at: m.index, count: (d.text.match(/\{\{|\{%/g) ?? []).length }] : [];
  });
  if (jinja.length > 0) {
    const total = jinja.reduce((n, j) => n + j.count, 0);
    const first = jinja[0]!;
    problems.push(
      problemAt(
        null,
        first.d.locate(first.at),
        `this template is written in Jinja2 syntax ({{ ... }}, {% ... %}), as Ghostwriter and python-docx-template ` +
          `use it (${total} such tag${total === 1 ? '' : 's'}). Templates here use single braces and plain names: ` +
          `{{ client.name }} becomes {client}, {% for finding in findings %}...{% endfor %} becomes ` +
          `{#findings}...{/findings}, {{p finding.description_rt }} becomes {@description}. See "Moving from ` +
          `Ghostwriter" in the DOCX template guide for the whole table.`,
      ),
    );
    return { parts, problems, foreign: 'jinja' };
  }

  const expressions: Array<{ tag: string; location: TemplateLocation }> = [];
  for (const d of decoded) {
    const raw = lexTags(d.text, d.locate, problems);
    const root: TagPart[] = [];
    const stack: Array<{ part: TagPart; name: string; offset: number }> = [];
    const add = (part: TagPart) => (stack.length > 0 ? stack[stack.length - 1]!.part.subparsed! : root).push(part);
    for (const t of raw) {
      const location = () => d.locate(t.offset);
      if (EXPRESSION.test(t.content)) {
        expressions.push({ tag: t.content, location: location() });
        continue;
      }
      const kind = t.content[0];
      if (kind === '#' || kind === '^' || kind === '-') {
        // `{-w:p name}` is docxtemplater's loop over an explicit element.
        const name = kind === '-' ? (/^-\S+\s+(.*)$/.exec(t.content)?.[1] ?? '') : t.content.slice(1);
        const part: TagPart = {
          type: 'placeholder',
          value: name,
          module: 'loop',
          inverted: kind === '^',
          offset: t.offset,
          subparsed: [],
        };
        add(part);
        stack.push({ part, name, offset: t.offset });
      } else if (kind === '/') {
        const name = t.content.slice(1);
        const top = stack[stack.length - 1];
        if (!top)
          problems.push(problemAt(t.content, location(), `{/${name}} closes no loop: there is no open {#${name}}`));
        else if (name !== '' && name !== top.name) {
          const opened = stack.findIndex((s) => s.name === name);
          problems.push(
            problemAt(
              t.content,
              location(),
              opened >= 0
                ? `{/${name}} closes {#${name}}, but {#${top.name}} (opened later) is still open: close {/${top.name}} first`
                : `{/${name}} does not match the open loop {#${top.name}}`,
            ),
          );
          if (opened >= 0) stack.length = opened;
        } else stack.pop();
      } else if (kind === '@') {
        add({ type: 'placeholder', value: t.content.slice(1), module: 'rawxml', offset: t.offset });
        const at = d.locate(t.offset);
        const paragraph = d.paragraphs.texts[at.paragraphNumber - 1] ?? '';
        if (paragraph !== `{${t.content}}`)
          problems.push(
            problemAt(
              t.content,
              at,
              `{${t.content}} writes whole paragraphs, so it must be the only text in its paragraph (no other text or spaces)`,
            ),
          );
      } else {
        add({ type: 'placeholder', value: t.content, offset: t.offset });
      }
    }
    for (const open of stack)
      problems.push(
        problemAt(`#${open.name}`, d.locate(open.offset), `{#${open.name}} is never closed: add {/${open.name}}`),
      );
    parts.push({ file: d.file, tags: root, locate: d.locate });
  }

  if (expressions.length > 0) {
    const shown = expressions.slice(0, 3).map((e) => `{${e.tag}}`);
    problems.push(
      problemAt(
        expressions[0]!.tag,
        expressions[0]!.location,
        `${expressions.length} tag${expressions.length === 1 ? ' is an expression' : 's are expressions'} ` +
          `(${shown.join(', ')}${expressions.length > 3 ? ', ...' : ''}): filters (|), comparisons and calls, as ` +
          `pwndoc-ng templates use them, are not run here, by design (a template cannot run code). Use the ready ` +
          `values instead: {@description} for formatted text, {criticalCount} to count, {#severities} to group, ` +
          `{label.*} for translated words. See "Moving from pwndoc-ng" in the DOCX template guide.`,
      ),
    );
  }
  // Why three: one stray expression is a mistake in a template of ours; several are another tool's template.
  return { parts, problems, foreign: expressions.length >= 3 ? 'expressions' : null };
}
