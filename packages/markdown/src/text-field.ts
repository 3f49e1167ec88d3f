import markdownIt, { type MarkdownIt } from 'markdown-it';
import { MarkdownFormatError } from './markdown-format-error.ts';
import type { SourceText } from './source-text.ts';
import { endWithoutBlanks, isSpaceOrTab, startWithoutBlanks } from './space-tab.ts';

/**
 * How one text field (a Markdown field such as a description or a tab's content, or an asset's
 * evidence text) is written into the file and read back, byte for byte.
 *
 * A Markdown field is written as-is ("raw") when that is provably safe, otherwise inside a fence:
 *
 *   ````markdown            <- N backticks, N = 3 or one more than the longest backtick run inside
 *   ...the field, line by line, untouched...
 *   ````
 *
 * No line inside can close the fence, because a closing fence needs a run of N backticks and the
 * field has none that long; so the field's lines are literal text to CommonMark and to our reader.
 * A carriage return cannot survive an editor (and the reader turns CRLF into LF), so a field holding
 * CR is written with `cr=␍`: every CR is written as U+240D "␍". A field that holds both CR and "␍"
 * (or U+0000) is written with `json`: one line holding the field as a JSON string.
 *
 * Raw is used only when the field is empty, or: it holds no CR or U+0000; its first and last lines
 * are not blank; its first line is not a fence; no line starts with `#`, `##` or `###` followed by a
 * space, tab or the line's end (those lines are what ends a field); and, when a line could open a
 * construct that runs across blank lines (a fence, an HTML block, a link reference definition),
 * markdown-it confirms that the field followed by a blank line and a heading ends before that heading
 * and defines no link references. The reader then takes the lines up to the next heading that ends
 * a field, without the blank lines around them: exactly the field.
 */

/** `markdown` fields may be written raw; `text` (asset evidence) and `excerpt` (its excerpt) are always fenced. */
export type TextFieldKind = 'markdown' | 'text' | 'excerpt';

const LONE_SURROGATE = /[\ud800-\udfff]/u;
const LONE_SURROGATES = /[\ud800-\udfff]/gu;
const ENDS_FIELD = /^#{1,3}(?:[ \t]|$)/m;
const MAY_RUN_ON = /^ {0,3}(?:`{3,}|~{3,}|<|\[)/m;
const FIRST_LINE_FENCE = /^ {0,3}(?:`{3,}|~{3,})/;
const FIRST_LINE_BLANK = /^[ \t]*(?:\n|$)/;
const LAST_LINE_BLANK = /(?:^|\n)[ \t]*$/;
const CR_SYMBOL = '\u240d';

let commonmark: MarkdownIt | null = null;

/** True when markdown-it, rendering the field and then a heading, ends the field before the heading. */
function endsBeforeNextHeading(content: string): boolean {
  if (!commonmark) {
    commonmark = markdownIt('commonmark');
    // Why only the block rules: blocks decide what a field can swallow; inline parsing is slower
    // and has no say in it.
    commonmark.core.ruler.disable(['inline', 'text_join']);
  }
  const env: { references?: Record<string, { href: string; title: string }> } = {};
  const tokens = commonmark.parse(`${content}\n\n# x\n`, env);
  if (env.references && Object.keys(env.references).length > 0) return false;
  const open = tokens[tokens.length - 3];
  let lines = 1;
  for (let i = content.indexOf('\n'); i >= 0; i = content.indexOf('\n', i + 1)) lines++;
  return open !== undefined && open.type === 'heading_open' && open.level === 0 && open.map?.[0] === lines + 1;
}

export function canWriteRaw(content: string): boolean {
  if (content === '') return true;
  if (content.includes('\r') || content.includes('\u0000')) return false;
  if (FIRST_LINE_BLANK.test(content) || LAST_LINE_BLANK.test(content) || FIRST_LINE_FENCE.test(content)) return false;
  if (ENDS_FIELD.test(content)) return false;
  if (MAY_RUN_ON.test(content) && !endsBeforeNextHeading(content)) return false;
  return true;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (let i = text.indexOf('`'); i >= 0; i = text.indexOf('`', i)) {
    let j = i + 1;
    while (text.charCodeAt(j) === 96) j++;
    if (j - i > longest) longest = j - i;
    i = j;
  }
  return longest;
}

/** A fenced block holding `body` verbatim, its fence longer than any backtick run in the body. */
export function fencedBlock(info: string, body: string): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(body) + 1));
  return `${fence}${info}\n${body}\n${fence}`;
}

/**
 * The block that carries a field (raw text or a fenced block), or null for an empty raw field
 * (the section heading alone says it is empty). Kinds `text` and `excerpt` are always fenced.
 */
export function textFieldBlock(content: string, kind: TextFieldKind): string | null {
  const value = LONE_SURROGATE.test(content) ? content.replace(LONE_SURROGATES, '\ufffd') : content;
  if (kind === 'markdown' && canWriteRaw(value)) return value === '' ? null : value;
  if (value.includes('\u0000') || (value.includes('\r') && value.includes(CR_SYMBOL)))
    return fencedBlock(`${kind} json`, JSON.stringify(value));
  if (value.includes('\r')) return fencedBlock(`${kind} cr=${CR_SYMBOL}`, value.replaceAll('\r', CR_SYMBOL));
  return fencedBlock(kind, value);
}

const FENCE_INFO = /^`{3,}([A-Za-z][\w-]*)/;

export interface FenceOpening {
  length: number;
  info: string;
  option: string;
}

/**
 * A fence opening line: three or more backticks, the info word (`yaml`, `markdown`, ...), then
 * optionally spaces or tabs and an option without backticks; spaces and tabs at the end ignored.
 * Scanned rather than matched by one pattern, whose lazy option before `[ \t]*$` retried from
 * every position of a long run of spaces (quadratic).
 */
export function readFenceOpening(line: string): FenceOpening | null {
  const m = FENCE_INFO.exec(line);
  if (!m) return null;
  let length = 0;
  while (line.charCodeAt(length) === 96) length++;
  const afterInfo = m[0].length;
  const end = endWithoutBlanks(line, afterInfo);
  if (end === afterInfo) return { length, info: m[1]!, option: '' };
  if (!isSpaceOrTab(line.charCodeAt(afterInfo))) return null;
  const option = line.slice(startWithoutBlanks(line, afterInfo, end), end);
  return option.includes('`') ? null : { length, info: m[1]!, option };
}

/** Index of the line closing a fence of `length` backticks opened at line `open`; throws when there is none. */
export function findFenceClose(source: SourceText, open: number, length: number): number {
  for (let i = open + 1; i < source.lineCount; i++) {
    if (source.firstChar(i) !== 96) continue;
    const line = source.line(i);
    let n = 0;
    while (line.charCodeAt(n) === 96) n++;
    if (n >= length && /^[ \t]*$/.test(line.slice(n))) return i;
  }
  throw new MarkdownFormatError(
    source.position(open),
    `a closing fence of ${length} backticks`,
    `the fence opened here is never closed: expected a line of ${length} backticks ` +
      `(\`${'`'.repeat(length)}\`) after the text`,
  );
}

/** Decodes the body of a fenced text field by its option (`''`, `cr=␍` or `json`). */
export function decodeFencedField(
  source: SourceText,
  open: number,
  close: number,
  option: string,
  what: string,
): string {
  const body = source.slice(open + 1, close);
  if (option === '') return body;
  if (option === `cr=${CR_SYMBOL}`) return body.replaceAll(CR_SYMBOL, '\r');
  if (option === 'json') {
    let value: unknown;
    try {
      value = close === open + 2 ? JSON.parse(body) : undefined;
    } catch {
      value = undefined;
    }
    if (typeof value !== 'string')
      throw new MarkdownFormatError(
        source.position(open + 1),
        'one line holding a JSON string',
        `${what} is fenced with \`json\`, so the fence must hold one line with the text as a JSON string ("...")`,
      );
    return value;
  }
  throw new MarkdownFormatError(
    source.position(open, 1),
    `a fence option \`cr=${CR_SYMBOL}\` or \`json\`, or none`,
    `unknown fence option "${option}" for ${what}: expected \`cr=${CR_SYMBOL}\`, ` +
      `\`json\` or nothing after the language`,
  );
}

export interface ReadField {
  value: string;
  /** First line after the field. */
  next: number;
}

/**
 * Reads a field that starts at line `from` (blank lines before it are skipped) and ends before the
 * first line for which `endsField` is true. A fenced field (opened by ```` ```<kind> ````) may hold
 * any line; after its closing fence only blank lines may come before the end.
 */
export function readTextField(
  source: SourceText,
  from: number,
  kind: TextFieldKind,
  endsField: (line: number) => boolean,
  what: string,
): ReadField {
  let i = from;
  while (i < source.lineCount && source.isBlank(i)) i++;
  if (i >= source.lineCount || endsField(i)) return { value: '', next: i };
  const opening = source.firstChar(i) === 96 ? readFenceOpening(source.line(i)) : null;
  if (opening && opening.info === kind) {
    const close = findFenceClose(source, i, opening.length);
    const value = decodeFencedField(source, i, close, opening.option, what);
    let next = close + 1;
    while (next < source.lineCount && source.isBlank(next)) next++;
    if (next < source.lineCount && !endsField(next)) {
      throw new MarkdownFormatError(
        source.position(next),
        'a heading after the fenced text',
        `${what} ends with the fence closed at line ${close + 1}, so only a heading may ` +
          `follow it; to keep this text, move it inside the fence`,
      );
    }
    return { value, next };
  }
  if (kind !== 'markdown')
    throw new MarkdownFormatError(
      source.position(i),
      `a fenced block \`\`\`${kind}`,
      `expected ${what} in a fenced block opened by \`\`\`${kind}`,
    );
  let end = i;
  let lastText = i;
  while (end < source.lineCount && !endsField(end)) {
    if (!source.isBlank(end)) lastText = end;
    end++;
  }
  return { value: source.slice(i, lastText + 1), next: end };
}
