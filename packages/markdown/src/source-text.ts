import { MarkdownFormatError, type SourcePosition } from './markdown-format-error.ts';

/**
 * A file as the reader sees it: line endings normalised to LF, no byte order mark, split into
 * lines by offset (lines are sliced only when looked at, so a 50 MB file is not copied line by
 * line). Line numbers are 0-based inside, 1-based in every message.
 */
export class SourceText {
  readonly lineCount: number;
  private readonly starts: number[];

  constructor(readonly text: string) {
    const starts: number[] = [];
    let at = 0;
    while (at < text.length) {
      starts.push(at);
      const next = text.indexOf('\n', at);
      if (next < 0) break;
      at = next + 1;
    }
    this.starts = starts;
    this.lineCount = starts.length;
  }

  start(line: number): number {
    return line < this.lineCount ? this.starts[line]! : this.text.length;
  }

  /** Offset just past the last character of the line (before its LF). */
  end(line: number): number {
    if (line + 1 < this.lineCount) return this.starts[line + 1]! - 1;
    const t = this.text;
    return t.length > 0 && t.charCodeAt(t.length - 1) === 10 ? t.length - 1 : t.length;
  }

  line(line: number): string {
    return this.text.slice(this.start(line), this.end(line));
  }

  firstChar(line: number): number {
    return this.start(line) < this.end(line) ? this.text.charCodeAt(this.start(line)) : -1;
  }

  /** True for an empty line or one of spaces and tabs only (CommonMark's blank line). */
  isBlank(line: number): boolean {
    const end = this.end(line);
    for (let i = this.start(line); i < end; i++) {
      const c = this.text.charCodeAt(i);
      if (c !== 32 && c !== 9) return false;
    }
    return true;
  }

  /** Text of lines [from, to) joined by LF, taken straight from the source. */
  slice(from: number, to: number): string {
    return to <= from ? '' : this.text.slice(this.start(from), this.end(to - 1));
  }

  position(line: number, column = 1): SourcePosition {
    return { line: line + 1, column };
  }

  /** 1-based position of an offset into the text. */
  positionOfOffset(offset: number): SourcePosition {
    let lo = 0;
    let hi = this.lineCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (this.starts[lo] ?? 0) + 1 };
  }
}

/**
 * Reads a file's text: refuses it above `maxBytes` UTF-8 bytes (code `payload_too_large`), decodes
 * bytes as UTF-8 (refusing invalid sequences), drops a leading byte order mark, turns CRLF and lone
 * CR into LF (the export never writes a CR, so any CR came from an editor), and refuses U+0000.
 */
export function readSourceText(input: string | Uint8Array, maxBytes: number, what: string): SourceText {
  let text: string;
  if (typeof input === 'string') {
    // Why a cheap bound first: a string's UTF-8 length is at most 3 bytes per UTF-16 unit.
    if (input.length * 3 > maxBytes && Buffer.byteLength(input, 'utf8') > maxBytes) throw tooLarge(what, maxBytes);
    text = input;
  } else {
    if (input.byteLength > maxBytes) throw tooLarge(what, maxBytes);
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(input);
    } catch {
      const offset = firstInvalidUtf8Byte(input);
      let line = 1;
      let lineStart = 0;
      for (let i = 0; i < offset; i++) {
        if (input[i] !== 10) continue;
        line++;
        lineStart = i + 1;
      }
      const column = new TextDecoder().decode(input.subarray(lineStart, offset)).length + 1;
      throw new MarkdownFormatError(
        { line, column },
        'UTF-8 text',
        `the ${what} is not valid UTF-8 (byte ${offset + 1}); save it as UTF-8 and try again`,
      );
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
  const source = new SourceText(text);
  const nul = text.indexOf('\u0000');
  if (nul >= 0)
    throw new MarkdownFormatError(
      source.positionOfOffset(nul),
      'text without U+0000',
      'the file contains a U+0000 (NUL) character, which no text field may hold',
    );
  return source;
}

function tooLarge(what: string, maxBytes: number): MarkdownFormatError {
  return new MarkdownFormatError(
    { line: 1, column: 1 },
    `a ${what} of at most ${maxBytes} bytes`,
    `the ${what} is larger than ${maxBytes} bytes ` +
      `(${Math.round(maxBytes / 1024 / 1024)} MiB), the most this service reads`,
    { tooLarge: true },
  );
}

/** Offset of the first byte that does not belong to a valid UTF-8 sequence. */
function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const need = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0;
    if (need === 0) return i;
    const min = need === 1 ? 0x80 : need === 2 ? 0x800 : 0x10000;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return bytes.length;
}
