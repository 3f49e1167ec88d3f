/**
 * Titles live in headings (`## SQL injection`) when the heading gives them back exactly: one line,
 * printable, no surrounding space, no trailing `#` run (CommonMark would read it as a closing
 * sequence). Any other title is written in the block's YAML `title` key, and the heading shows a
 * cleaned-up version of it for people.
 */
const HEADING_CHARS = /^[^\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]+$/u;

export function isHeadingSafe(title: string): boolean {
  return HEADING_CHARS.test(title) && /^\S/u.test(title) && /\S$/u.test(title) && !/(?:^|[ \t])#+$/.test(title);
}

/** What the heading shows for a title that is not heading-safe. */
export function headingDisplay(title: string): string {
  const shown = title
    .replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]|[\ud800-\udfff]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .replace(/(?:[ \t]+#+)+[ \t]*$/, '')
    .trim();
  return isHeadingSafe(shown) ? shown : 'Untitled';
}

/** The text of an ATX heading line at column 0 and its level, or null. */
export function readHeading(line: string): { level: number; text: string } | null {
  if (line.charCodeAt(0) !== 35) return null;
  // Why the s flag: `.` must also take U+2028 and U+2029, which CommonMark does not end lines at.
  const m = /^(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/s.exec(line);
  if (!m) return null;
  return { level: m[1]!.length, text: (m[2] ?? '').replace(/^[ \t]+/, '') };
}
