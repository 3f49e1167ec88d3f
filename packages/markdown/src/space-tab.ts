/**
 * Spaces and tabs at the ends of a line, found by scanning instead of by regular expressions: a
 * pattern such as `/[ \t]+$/` retries from every position of a long run of spaces that is not at
 * the end, which takes time quadratic in the run (a line of 40,000 spaces and one letter took
 * seconds), so any line of a file could stall the reader.
 */

export function isSpaceOrTab(code: number): boolean {
  return code === 32 || code === 9;
}

/** Offset just past the last character of `text[from, to)` that is not a space or tab (`from` if none). */
export function endWithoutBlanks(text: string, from = 0, to = text.length): number {
  let end = to;
  while (end > from && isSpaceOrTab(text.charCodeAt(end - 1))) end--;
  return end;
}

/** Offset of the first character of `text[from, to)` that is not a space or tab (`to` if none). */
export function startWithoutBlanks(text: string, from = 0, to = text.length): number {
  let start = from;
  while (start < to && isSpaceOrTab(text.charCodeAt(start))) start++;
  return start;
}

/** `text` without the spaces and tabs at its end. */
export function trimEndBlanks(text: string): string {
  const end = endWithoutBlanks(text);
  return end === text.length ? text : text.slice(0, end);
}
