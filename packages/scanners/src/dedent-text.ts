/**
 * Trims a text block and removes the indentation its continuation lines share.
 * Why: re-indented (pretty-printed) Nessus exports carry the XML indentation inside every
 * description line; relative indentation (lists, code) is kept.
 */
export function dedentText(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.includes('\n')) return trimmed;
  const lines = trimmed.split('\n');
  let common = Number.POSITIVE_INFINITY;
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue;
    const indent = line.length - line.trimStart().length;
    if (indent < common) common = indent;
  }
  if (common === 0 || common === Number.POSITIVE_INFINITY) return trimmed;
  const [first = '', ...rest] = lines;
  const dedented = rest.map((line) => line.slice(Math.min(common, line.length - line.trimStart().length)));
  return [first, ...dedented].join('\n');
}
