import { Buffer, isAscii } from 'node:buffer';
import { TextDecoder } from 'node:util';

/** Thrown by TextStreamDecoder; the caller knows the line and turns it into a ScanParseError. */
export class InvalidTextError extends Error {
  constructor(
    message: string,
    /** offset within the chunk being decoded */
    readonly chunkOffset: number,
  ) {
    super(message);
  }
}

/**
 * Incremental, strict byte-to-text decoding.
 * Why strict: invalid UTF-8 in an XML or JSON export means a wrong or damaged file; silently
 * replacing bytes would hide that and corrupt identifiers.
 */
export class TextStreamDecoder {
  private readonly decoder: TextDecoder;
  private readonly utf8: boolean;
  private bytesBefore = 0;
  /** the strict decoder holds no bytes of an unfinished character */
  private settled = true;

  constructor(readonly encoding: string) {
    // Throws RangeError for labels TextDecoder does not know; callers check with isSupportedEncoding.
    this.decoder = new TextDecoder(encoding, { fatal: true });
    this.utf8 = this.decoder.encoding === 'utf-8';
  }

  decode(bytes: Uint8Array, final = false): string {
    // Why the ASCII path: most scanner exports are pure ASCII, which is valid UTF-8 and decodes
    // byte for byte; checking and copying it natively is several times faster than TextDecoder.
    if (this.utf8 && this.settled && isAscii(bytes)) {
      this.bytesBefore += bytes.length;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
    }
    try {
      const text = this.decoder.decode(bytes, { stream: !final });
      this.bytesBefore += bytes.length;
      this.settled = final || !this.utf8 || !endsInsideCharacter(bytes);
      return text;
    } catch {
      const offset = this.decoder.encoding === 'utf-8' ? findInvalidUtf8(bytes) : 0;
      throw new InvalidTextError(
        `it is not valid ${this.decoder.encoding.toUpperCase()} text (bad byte sequence ` +
          `at byte ${this.bytesBefore + offset})`,
        offset,
      );
    }
  }
}

export function isSupportedEncoding(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

/** Whether the last bytes start a UTF-8 character that continues in the next chunk (or cannot tell). */
function endsInsideCharacter(bytes: Uint8Array): boolean {
  for (let back = 1; back <= 4 && back <= bytes.length; back++) {
    const b = bytes[bytes.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte
    const length = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return length > back;
  }
  return true;
}

/**
 * Offset of the first invalid UTF-8 sequence in `bytes`, for error messages only. Continuation
 * bytes at the very start may belong to a sequence begun in the previous chunk and are skipped.
 */
function findInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < 3 && i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const length = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      if (i + k >= bytes.length) return i; // sequence cut off by the end of the input
      if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    }
    i += length;
  }
  return Math.max(0, bytes.length - 1);
}
