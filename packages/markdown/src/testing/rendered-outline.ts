import markdownIt from 'markdown-it';

const md = markdownIt('commonmark');

/**
 * The level 1-3 ATX headings markdown-it renders from lines that start with `#` at column 0, in order,
 * as `## Text` strings. Text inside fences never yields a heading and a raw field never holds such a
 * line, so this is the file's own outline exactly when rendering swallowed and reordered nothing.
 */
export function renderedOutline(markdown: string): string[] {
  const lines = markdown.split('\n');
  const tokens = md.parse(markdown, {});
  const outline: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type !== 'heading_open' || !t.map) continue;
    if (!lines[t.map[0]]!.startsWith('#') || !t.markup.startsWith('#') || t.markup.length > 3) continue;
    outline.push(`${t.markup} ${tokens[i + 1]!.content}`);
  }
  return outline;
}
