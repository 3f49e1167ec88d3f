import { endWithoutBlanks, isSpaceOrTab, startWithoutBlanks } from './space-tab.ts';

/**
 * Titles live in headings (`## SQL injection`) when the heading gives them back exactly: one line,
 * printable, no surrounding space, no trailing `#` run (CommonMark would read it as a closing
 * sequence). Any other title is written in the block's YAML `title` key, and the heading shows a
 * cleaned-up version of it for people.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: a heading may hold no control character; this is the check.
const HEADING_CHARS = /^[^\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]+$/u;

export function isHeadingSafe(title: string): boolean {
  return HEADING_CHARS.test(title) && /^\S/u.test(title) && /\S$/u.test(title) && !/(?:^|[ \t])#+$/.test(title);
}

/** What the heading shows for a title that is not heading-safe. */
export function headingDisplay(title: string): string {
  const shown = withoutClosingSequence(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the display replaces.
    title.replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]|[\ud800-\udfff]/gu, ' ').replace(/\s+/gu, ' '),
  ).trim();
  return isHeadingSafe(shown) ? shown : 'Untitled';
}

/**
 * `text` without a trailing run of `#` groups each preceded by spaces or tabs (what CommonMark reads
 * as a heading's closing sequence), as `/(?:[ \t]+#+)+[ \t]*$/` would remove it, in linear time.
 */
function withoutClosingSequence(text: string): string {
  let end = endWithoutBlanks(text);
  let cut = -1;
  for (;;) {
    let hashes = end;
    while (hashes > 0 && text.charCodeAt(hashes - 1) === 35) hashes--;
    if (hashes === end) break;
    const blanks = endWithoutBlanks(text, 0, hashes);
    if (blanks === hashes) break;
    cut = end = blanks;
  }
  return cut < 0 ? text : text.slice(0, cut);
}

/**
 * The text of an ATX heading line at column 0 and its level, or null: one to six `#`, then the
 * end of the line or a space or tab; the text without the spaces and tabs around it. (U+2028 and
 * U+2029 are text: CommonMark does not end lines at them.)
 */
export function readHeading(line: string): { level: number; text: string } | null {
  let level = 0;
  while (level < line.length && line.charCodeAt(level) === 35) level++;
  if (level === 0 || level > 6) return null;
  const end = endWithoutBlanks(line, level);
  if (end === level) return { level, text: '' };
  if (!isSpaceOrTab(line.charCodeAt(level))) return null;
  return { level, text: line.slice(startWithoutBlanks(line, level, end), end) };
}
