import { detectFormat } from './detect-format.ts';
import { BurpParser } from './parse-burp.ts';
import { NessusParser } from './parse-nessus.ts';
import { NmapParser } from './parse-nmap.ts';
import { NucleiParser } from './parse-nuclei.ts';
import type { ParseResult } from './parse-result.ts';
import { SCAN_FORMATS, type ScanFormat } from './scan-format.ts';
import { ScanParseError } from './scan-parse-error.ts';

export interface ParseScanOptions {
  /** skip content detection; the file must then be of this format */
  format?: ScanFormat;
}

export interface ParseScanStreamOptions {
  format: ScanFormat;
}

/** A push parser for one file: bytes in, a ParseResult out. */
interface ScanSink {
  write(bytes: Uint8Array): void;
  end(): ParseResult;
}

/**
 * Bytes handed to a parser at once. Why: decoding a whole 200 MB buffer into one string would
 * double the memory; pieces keep each parser's buffers small whatever the caller's chunk size.
 */
const PIECE_BYTES = 1024 * 1024;

/** Parses a whole file held in memory. The format is detected from the content unless given. */
export function parseScan(bytes: Uint8Array, options: ParseScanOptions = {}): ParseResult {
  const format = options.format ?? detectFormat(bytes);
  if (format === null) {
    throw new ScanParseError(
      null,
      bytes.length === 0
        ? 'The file is empty, so its format cannot be recognised; choose the format ' +
            'explicitly (an empty Nuclei export is valid).'
        : startsAsJson(bytes)
          ? 'The file is JSON but not a Nuclei export: no record names a Nuclei template (template-id). ' +
            'Reports of other tools (ZAP, Semgrep, ...) are not supported. Supported: Nessus, Burp Suite XML, ' +
            'Nmap XML (-oX), Nuclei JSON lines or JSON array.'
          : 'The file is not a recognised scanner export. Supported: Nessus (.nessus, ' +
            'NessusClientData_v2), Burp Suite XML issue export, Nmap XML (-oX), Nuclei JSON ' +
            'lines or JSON array.',
    );
  }
  const sink = createSink(format);
  writeInPieces(sink, bytes);
  return sink.end();
}

/**
 * Parses a file as it streams in (for example from fs.createReadStream), never holding the whole
 * text: memory stays bounded by the findings kept, not by the file size.
 */
export async function parseScanStream(
  stream: AsyncIterable<Uint8Array>,
  options: ParseScanStreamOptions,
): Promise<ParseResult> {
  if (!SCAN_FORMATS.includes(options.format)) throw new TypeError(`Unknown scan format: ${String(options.format)}`);
  const sink = createSink(options.format);
  for await (const chunk of stream) {
    if (!(chunk instanceof Uint8Array))
      throw new TypeError('parseScanStream needs a stream of bytes; do not set an encoding on it.');
    writeInPieces(sink, chunk);
  }
  return sink.end();
}

function startsAsJson(bytes: Uint8Array): boolean {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  return bytes[i] === 0x7b || bytes[i] === 0x5b;
}

function createSink(format: ScanFormat): ScanSink {
  switch (format) {
    case 'nessus':
      return new NessusParser();
    case 'burp':
      return new BurpParser();
    case 'nmap':
      return new NmapParser();
    case 'nuclei':
      return new NucleiParser();
  }
}

function writeInPieces(sink: ScanSink, bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.length; offset += PIECE_BYTES) {
    sink.write(bytes.subarray(offset, Math.min(bytes.length, offset + PIECE_BYTES)));
  }
}
