import { LIMITS } from './limits.ts';
import { clampText, retainText } from './retain-text.ts';

const CRLF_CRLF = Buffer.from('\r\n\r\n');
const LF_LF = Buffer.from('\n\n');

/** Decoding space reused across messages; grown when a caller asks for a larger cap. */
let scratch = Buffer.allocUnsafe(LIMITS.httpMessageChars * 4);

/**
 * Turns a Burp `<request>` / `<response>` into text for evidence (SCANNERS.md 3.3):
 * base64-decoded only when the element says base64="true"; decoded bytes that are not UTF-8 are
 * replaced with U+FFFD rather than rejected; a body containing NUL bytes is binary, so its headers
 * are kept and the body is replaced by a marker; the result is capped at LIMITS.httpMessageChars.
 * Returns undefined for an empty message (the occurrence is kept without it).
 */
export function decodeBurpMessage(
  content: string,
  base64: boolean,
  maxChars: number = LIMITS.httpMessageChars,
): string | undefined {
  if (!base64) return content.trim() === '' ? undefined : retainText(content, maxChars);

  // Why decode only a prefix: a response can be megabytes and we keep maxChars characters at most;
  // a UTF-8 character is at most 4 bytes.
  const maxBytes = maxChars * 4;
  const maxBase64 = Math.ceil(maxBytes / 3) * 4;
  if (scratch.length < maxBytes) scratch = Buffer.allocUnsafe(maxBytes);
  // Why a reused buffer: a fresh Buffer per message is off-heap memory that makes V8 collect more often.
  const length = scratch.write(content.length > maxBase64 ? content.slice(0, maxBase64) : content, 0, 'base64');
  if (length === 0) return undefined;
  const bytes = scratch.subarray(0, length);
  const totalBytes = estimateDecodedLength(content);

  const headerEnd = findHeaderEnd(bytes);
  if (headerEnd < 0 && bytes.indexOf(0) >= 0) return `[binary content omitted: ${totalBytes} bytes]`;
  if (headerEnd >= 0 && bytes.indexOf(0, headerEnd) >= 0) {
    const headers = bytes.subarray(0, headerEnd).toString('utf8');
    return clampText(`${headers}[binary body omitted: ${totalBytes - headerEnd} bytes]`, maxChars);
  }
  let text = bytes.toString('utf8');
  if (totalBytes > bytes.length) text += `\n[truncated: ${totalBytes - bytes.length} more bytes]`;
  // Why clampText: toString made a fresh string that shares nothing with the parser's chunks.
  return clampText(text, maxChars);
}

/** Offset just after the blank line that ends the HTTP headers, or -1. */
function findHeaderEnd(bytes: Buffer): number {
  const crlf = bytes.indexOf(CRLF_CRLF);
  if (crlf >= 0) return crlf + 4;
  const lf = bytes.indexOf(LF_LF);
  return lf >= 0 ? lf + 2 : -1;
}

function estimateDecodedLength(base64: string): number {
  let length = base64.length;
  while (length > 0 && base64.charCodeAt(length - 1) <= 0x20) length--;
  let padding = 0;
  while (padding < 2 && length > 0 && base64[length - 1] === '=') {
    length--;
    padding++;
  }
  return Math.floor((length * 3) / 4);
}
