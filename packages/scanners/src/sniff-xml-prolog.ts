import { Buffer } from 'node:buffer';
import { TextDecoder } from 'node:util';

/** How much of the start of a file is examined before parsing. */
export const PROLOG_SNIFF_BYTES = 64 * 1024;

export interface XmlPrologInfo {
  /** WHATWG encoding label for TextDecoder */
  encoding: string;
  /** byte offset where the XML parser should start (after BOM, leading whitespace and junk) */
  startOffset: number;
  /** non-whitespace content before the `<?xml` declaration was skipped */
  skippedJunk: boolean;
  /** line breaks in the skipped part, to keep reported line numbers true to the file */
  skippedLines: number;
  /** name of the first element, or null when it is not within the examined bytes */
  rootElement: string | null;
}

/**
 * Looks at the first bytes of an XML file: byte order mark and declared encoding, content before
 * the XML declaration (secureCodeBox Nmap fixtures put an SPDX comment there, which strict parsers
 * reject; EXPECTED rule M6 wants it skipped and flagged), and the root element name.
 */
export function sniffXmlProlog(head: Uint8Array): XmlPrologInfo {
  let bomLength = 0;
  let encoding: string | null = null;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) {
    bomLength = 3;
    encoding = 'utf-8';
  } else if (head[0] === 0xff && head[1] === 0xfe) {
    bomLength = 2;
    encoding = 'utf-16le';
  } else if (head[0] === 0xfe && head[1] === 0xff) {
    bomLength = 2;
    encoding = 'utf-16be';
  } else if (head[0] === 0x3c && head[1] === 0x00) {
    encoding = 'utf-16le';
  } else if (head[0] === 0x00 && head[1] === 0x3c) {
    encoding = 'utf-16be';
  }
  const utf16 = encoding === 'utf-16le' || encoding === 'utf-16be';
  // Why latin1 for the rest: every byte becomes one char, so char indexes are byte offsets and the
  // ASCII markup we look for reads the same in UTF-8 and in single-byte encodings.
  const body = head.subarray(bomLength);
  const view = utf16
    ? new TextDecoder(encoding as string).decode(body)
    : Buffer.from(body.buffer, body.byteOffset, body.length).toString('latin1');

  let start = skipWhitespace(view, 0);
  let skippedJunk = false;
  let declarationAt = isDeclarationAt(view, start) ? start : -1;
  if (declarationAt < 0) {
    const later = findDeclaration(view, start + 1);
    // Why the element check: `<?xml ` inside the document (a Burp request body, say) is not a
    // declaration; junk is only what comes before the document starts.
    if (later > 0 && !/<[A-Za-z_:]/.test(view.slice(start, later))) {
      declarationAt = later;
      skippedJunk = true;
      start = later;
    }
  }
  if (encoding === null) encoding = declarationAt >= 0 ? (declaredEncoding(view, declarationAt) ?? 'utf-8') : 'utf-8';

  return {
    encoding,
    startOffset: bomLength + start * (utf16 ? 2 : 1),
    skippedJunk,
    skippedLines: countLineBreaks(view, start),
    rootElement: findRootElement(view, start),
  };
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function skipWhitespace(view: string, from: number): number {
  let i = from;
  while (i < view.length && isWhitespace(view.charCodeAt(i))) i++;
  return i;
}

function isDeclarationAt(view: string, at: number): boolean {
  if (!view.startsWith('<?xml', at)) return false;
  const next = view.charCodeAt(at + 5);
  return isWhitespace(next) || next === 0x3f; // `<?xml?>` is malformed but still a declaration
}

function findDeclaration(view: string, from: number): number {
  for (let at = view.indexOf('<?xml', from); at >= 0; at = view.indexOf('<?xml', at + 5)) {
    if (isDeclarationAt(view, at)) return at;
  }
  return -1;
}

function declaredEncoding(view: string, declarationAt: number): string | null {
  const end = view.indexOf('?>', declarationAt);
  const declaration = view.slice(declarationAt, end < 0 ? declarationAt + 200 : end);
  const match = /\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(declaration);
  return match?.[1]?.toLowerCase() ?? null;
}

function countLineBreaks(view: string, end: number): number {
  let lines = 0;
  for (let i = view.indexOf('\n'); i >= 0 && i < end; i = view.indexOf('\n', i + 1)) lines++;
  return lines;
}

/** Skips declaration, processing instructions, comments and DOCTYPE; returns the first element name. */
function findRootElement(view: string, from: number): string | null {
  let i = from;
  for (;;) {
    i = skipWhitespace(view, i);
    if (i >= view.length || view.charCodeAt(i) !== 0x3c) return null;
    if (view.startsWith('<?', i)) {
      const end = view.indexOf('?>', i + 2);
      if (end < 0) return null;
      i = end + 2;
    } else if (view.startsWith('<!--', i)) {
      const end = view.indexOf('-->', i + 4);
      if (end < 0) return null;
      i = end + 3;
    } else if (view.startsWith('<!DOCTYPE', i)) {
      const end = endOfDoctype(view, i + 9);
      if (end < 0) return null;
      i = end;
    } else {
      const match = /^<([A-Za-z_][A-Za-z0-9_.:-]*)/.exec(view.slice(i, i + 256));
      return match?.[1] ?? null;
    }
  }
}

/** Index after the `>` closing a DOCTYPE, skipping its internal subset and quoted strings. */
function endOfDoctype(view: string, from: number): number {
  let inSubset = false;
  for (let i = from; i < view.length; i++) {
    const c = view[i];
    if (c === '"' || c === "'") {
      const close = view.indexOf(c, i + 1);
      if (close < 0) return -1;
      i = close;
    } else if (inSubset && view.startsWith('<!--', i)) {
      const close = view.indexOf('-->', i + 4);
      if (close < 0) return -1;
      i = close + 2;
    } else if (c === '[') {
      inSubset = true;
    } else if (c === ']') {
      inSubset = false;
    } else if (c === '>' && !inSubset) {
      return i + 1;
    }
  }
  return -1;
}
