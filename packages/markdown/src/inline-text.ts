/**
 * Reversible escaping of text inside one line of Markdown: link text, image alt text (captions),
 * link titles (file names) and link destinations. It uses CommonMark's own escapes, so a renderer
 * shows the original text: a backslash before ASCII punctuation, and the character references
 * `&#10;` (LF) and `&#13;` (CR) for line breaks, which keeps every link on one line.
 *
 * Escaped: every `\`; `&` when entity-like text follows (`&amp;`, `&#10;`); LF and CR; plus the
 * characters that would end or change the construct (`[ ] \`` and `<` in text, `"` in titles,
 * `< >` in destinations). Reading undoes exactly these; a backslash before anything else stays.
 */

export type InlinePlace = 'text' | 'title' | 'destination';

const SPECIAL: Record<InlinePlace, RegExp> = {
  text: /[\\&\n\r[\]`<]/g,
  title: /[\\&\n\r"]/g,
  destination: /[\\&\n\r<>]/g,
};
const ENTITY_LIKE = /^&#?[A-Za-z0-9]+;/;
const LONE_SURROGATES = /[\ud800-\udfff]/gu;
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;

export function escapeInline(text: string, place: InlinePlace): string {
  const value = text.replace(LONE_SURROGATES, '\ufffd');
  return value.replace(SPECIAL[place], (c, offset: number) => {
    if (c === '\n') return '&#10;';
    if (c === '\r') return '&#13;';
    if (c === '&') return ENTITY_LIKE.test(value.slice(offset, offset + 40)) ? '\\&' : '&';
    return `\\${c}`;
  });
}

export function unescapeInline(text: string): string {
  if (!text.includes('\\') && !text.includes('&#1')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length && ASCII_PUNCTUATION.test(text[i + 1]!)) {
      out += text[++i];
    } else if (c === '&' && text.startsWith('&#10;', i)) {
      out += '\n';
      i += 4;
    } else if (c === '&' && text.startsWith('&#13;', i)) {
      out += '\r';
      i += 4;
    } else out += c;
  }
  return out;
}

/** A link destination as written: bare when plainly safe, else in angle brackets with escapes. */
export function writeDestination(url: string): string {
  if (
    url !== '' &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a bare destination may hold no control character or space.
    /^[^\x00-\x20\x7f<>()\\]+$/.test(url) &&
    !/&#?[A-Za-z0-9]+;/.test(url) &&
    !/[\ud800-\udfff]/u.test(url)
  )
    return url;
  return `<${escapeInline(url, 'destination')}>`;
}

export interface InlineLink {
  text: string;
  destination: string;
  title: string | null;
  /** Offset just past the closing parenthesis. */
  end: number;
}

/**
 * Reads `[text](destination "title")` starting at `start` (the `[`). Returns null with the offset
 * and what was expected there when the text is not such a link.
 */
export function readInlineLink(line: string, start: number): InlineLink | { error: string; at: number } {
  if (line[start] !== '[') return { error: '`[`', at: start };
  let i = start + 1;
  let depth = 0;
  for (; i < line.length; i++) {
    const c = line[i];
    if (c === '\\') i++;
    else if (c === '[') depth++;
    else if (c === ']') {
      if (depth === 0) break;
      depth--;
    }
  }
  if (i >= line.length) return { error: 'a closing `]` (write `\\]` for a bracket inside the text)', at: line.length };
  const text = unescapeInline(line.slice(start + 1, i));
  i++;
  if (line[i] !== '(') return { error: '`(` right after `]`', at: i };
  i++;
  while (line[i] === ' ') i++;
  let destination: string;
  if (line[i] === '<') {
    const from = i + 1;
    for (i = from; i < line.length && line[i] !== '>'; i++) if (line[i] === '\\') i++;
    if (i >= line.length) return { error: 'a closing `>` of the link destination', at: line.length };
    destination = unescapeInline(line.slice(from, i));
    i++;
  } else {
    const from = i;
    let parens = 0;
    for (; i < line.length; i++) {
      const c = line[i];
      if (c === '\\') i++;
      else if (c === '(') parens++;
      else if (c === ')') {
        if (parens === 0) break;
        parens--;
      } else if (c === ' ' || c === '\t') break;
    }
    destination = unescapeInline(line.slice(from, i));
  }
  while (line[i] === ' ') i++;
  let title: string | null = null;
  if (line[i] === '"') {
    const from = i + 1;
    for (i = from; i < line.length && line[i] !== '"'; i++) if (line[i] === '\\') i++;
    if (i >= line.length)
      return { error: 'a closing `"` of the title (write `\\"` for a quote inside it)', at: line.length };
    title = unescapeInline(line.slice(from, i));
    i++;
    while (line[i] === ' ') i++;
  }
  if (line[i] !== ')') return { error: '`)` closing the link', at: i };
  return { text, destination, title, end: i + 1 };
}
