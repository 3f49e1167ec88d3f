import type { ScanFormat } from './scan-format.ts';

export interface ScanParseErrorOptions {
  line?: number;
  column?: number;
  cause?: unknown;
}

/**
 * The only error the parsers throw for bad input (malformed, hostile, truncated or unrecognised
 * files). The message names the format and, where known, the line and column, so the person who
 * uploaded the file can act on it. `code` is stable so the HTTP layer can map it to a 4xx.
 */
export class ScanParseError extends Error {
  override readonly name = 'ScanParseError';
  readonly code = 'scan_parse_error';
  readonly format: ScanFormat | null;
  readonly line?: number;
  readonly column?: number;

  constructor(format: ScanFormat | null, message: string, options: ScanParseErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.format = format;
    if (options.line !== undefined) this.line = options.line;
    if (options.column !== undefined) this.column = options.column;
  }
}

/** " at line 12, column 4" (or "" when the position is unknown), for building messages. */
export function describePosition(line?: number, column?: number): string {
  if (line === undefined) return '';
  return column === undefined ? ` at line ${line}` : ` at line ${line}, column ${column}`;
}
