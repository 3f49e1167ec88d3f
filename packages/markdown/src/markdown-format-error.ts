/** Where in a Markdown file something is: 1-based line and column (UTF-16 code units). */
export interface SourcePosition {
  line: number;
  column: number;
}

/**
 * The one error the Markdown reader throws for input it cannot accept: a file that does not
 * parse, a value that is not allowed, or a file over its size or count limits. `line`, `column`
 * and `expected` say where and what was wanted there; the message says all of it for a person
 * ("line 42, column 1: expected a finding heading `## ...`"). The API answers 422
 * `invalid_markdown` with these fields, or 413 when `code` is `payload_too_large`.
 */
export class MarkdownFormatError extends Error {
  readonly code: 'invalid_markdown' | 'payload_too_large';
  readonly status: 413 | 422;
  readonly expose = true;
  readonly line: number;
  readonly column: number;
  /** What the reader expected at that place, for a person ("a finding heading `## ...`"). */
  readonly expected: string;
  /** JSON Pointer of the value concerned when the problem is a value (`/findings/3/severity`), else undefined. */
  readonly path?: string;

  constructor(
    at: SourcePosition,
    expected: string,
    problem?: string,
    options: { path?: string; tooLarge?: boolean; cause?: unknown } = {},
  ) {
    const what = problem ?? `expected ${expected}`;
    super(`line ${at.line}, column ${at.column}: ${what}`, { cause: options.cause });
    this.name = 'MarkdownFormatError';
    this.code = options.tooLarge ? 'payload_too_large' : 'invalid_markdown';
    this.status = options.tooLarge ? 413 : 422;
    this.line = at.line;
    this.column = at.column;
    this.expected = expected;
    this.path = options.path;
  }

  /** The error as the API's `details` entry: `{ path, message }`. */
  toDetail(): { path: string; message: string } {
    return { path: this.path ?? '/file', message: this.message };
  }
}
