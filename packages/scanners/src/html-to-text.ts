const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  bull: '•',
};

/** Elements after which a line break belongs in plain text. */
const BLOCK_ELEMENTS = new Set([
  'p',
  'div',
  'br',
  'ul',
  'ol',
  'table',
  'tr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'pre',
  'blockquote',
]);

/**
 * Burp's issue texts are small HTML fragments (p, b, ul/li, a, br, table). This turns them into
 * readable plain text with light markdown: list items as `- item`, links as `text (url)`,
 * paragraphs separated by a blank line. It is not a general HTML renderer and never executes or
 * fetches anything; the original HTML is kept beside the text.
 */
export function htmlToText(html: string): string {
  let out = '';
  let href: string | null = null;
  let linkText = '';
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    const textEnd = lt < 0 ? html.length : lt;
    if (textEnd > i) {
      const text = decodeHtmlEntities(html.slice(i, textEnd)).replace(/\s+/g, ' ');
      if (href !== null) linkText += text;
      else out += text;
    }
    if (lt < 0) break;
    const gt = html.indexOf('>', lt + 1);
    if (gt < 0) {
      out += decodeHtmlEntities(html.slice(lt)).replace(/\s+/g, ' ');
      break;
    }
    const tag = html.slice(lt + 1, gt);
    i = gt + 1;
    const match = /^(\/?)([A-Za-z][A-Za-z0-9]*)/.exec(tag);
    if (match === null) continue; // comment, doctype or stray `<`
    const [, slash, tagName = ''] = match;
    const closing = slash === '/';
    const name = tagName.toLowerCase();
    if (name === 'a') {
      if (!closing) {
        const target = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag);
        href = target === null ? '' : decodeHtmlEntities(target[1] ?? target[2] ?? target[3] ?? '');
        linkText = '';
      } else if (href !== null) {
        const textPart = linkText.trim();
        out += href === '' || textPart === href ? textPart || href : textPart === '' ? href : `${textPart} (${href})`;
        href = null;
      }
    } else if (name === 'li') {
      if (!closing) out += '\n- ';
    } else if (
      name === 'p' ||
      name === 'ul' ||
      name === 'ol' ||
      name === 'pre' ||
      name === 'table' ||
      name === 'blockquote' ||
      /^h[1-6]$/.test(name)
    ) {
      out += '\n\n';
    } else if (BLOCK_ELEMENTS.has(name)) {
      out += '\n';
    } else if (name === 'td' || name === 'th') {
      out += ' ';
    }
  }
  return out
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Targets of `<a href>` links, in order, without duplicates. */
export function extractLinks(html: string): string[] {
  const links: string[] = [];
  for (const match of html.matchAll(/<a\b[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) {
    const link = decodeHtmlEntities(match[1] ?? match[2] ?? '').trim();
    if (link !== '' && !links.includes(link)) links.push(link);
  }
  return links;
}

export function decodeHtmlEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (entity, body: string) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
  });
}
