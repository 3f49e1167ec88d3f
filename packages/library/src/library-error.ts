import type { LibraryProblem } from './library-problem.ts';
import { formatProblem } from './library-problem.ts';

export type LibraryErrorCode = 'invalid_library' | 'library_not_loaded' | 'invalid_argument';

/**
 * The one error of this package: a stable `code`, a message naming the concrete thing, a hint
 * with the next step, and for `invalid_library` the problems found (file, line, column).
 */
export class LibraryError extends Error {
  readonly code: LibraryErrorCode;
  readonly hint: string | undefined;
  readonly problems: LibraryProblem[];

  constructor(
    code: LibraryErrorCode,
    message: string,
    options: { hint?: string; problems?: LibraryProblem[]; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'LibraryError';
    this.code = code;
    this.hint = options.hint;
    this.problems = options.problems ?? [];
  }

  static invalid(dir: string, problems: LibraryProblem[]): LibraryError {
    const errors = problems.filter((p) => p.level === 'error');
    const shown = errors.slice(0, 10).map((p) => `  ${formatProblem(p)}`);
    const more = errors.length > shown.length ? `\n  ... and ${errors.length - shown.length} more` : '';
    return new LibraryError(
      'invalid_library',
      `The library in ${dir} has ${errors.length} ` +
        `problem${errors.length === 1 ? '' : 's'}:\n${shown.join('\n')}${more}`,
      {
        hint: 'Run `npm run library:check` for the full list and fix each file.',
        problems,
      },
    );
  }
}
