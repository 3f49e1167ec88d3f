/** Where in a library file something is: 1-based line and column. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** One thing wrong with a library file, located precisely enough to jump to it in an editor. */
export interface LibraryProblem {
  /** Path of the file relative to the library folder, with `/` separators: `narratives/scope.md`. */
  file: string;
  line: number;
  column: number;
  message: string;
  /** Errors fail `library:check`; warnings are printed and do not. */
  level: 'error' | 'warning';
}

/** `library/narratives/scope.md:12:3: message` (the compiler convention editors understand). */
export function formatProblem(problem: LibraryProblem, displayRoot = 'library'): string {
  const prefix = problem.level === 'warning' ? 'warning: ' : '';
  return `${displayRoot}/${problem.file}:${problem.line}:${problem.column}: ${prefix}${problem.message}`;
}

/** Collects the problems of one file; every check reports here instead of throwing. */
export class ProblemList {
  readonly problems: LibraryProblem[] = [];

  constructor(readonly file: string) {}

  error(at: SourcePosition, message: string): void {
    this.problems.push({ file: this.file, line: at.line, column: at.column, message, level: 'error' });
  }

  warning(at: SourcePosition, message: string): void {
    this.problems.push({ file: this.file, line: at.line, column: at.column, message, level: 'warning' });
  }

  get hasErrors(): boolean {
    return this.problems.some((p) => p.level === 'error');
  }
}
