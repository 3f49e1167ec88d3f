export interface OperatorErrorOptions {
  /** The next thing to do, ideally a command to run: "Run `install.sh backup` first." */
  hint?: string;
  /** Process exit code; 1 unless a command documents another. */
  exitCode?: number;
  cause?: unknown;
}

/**
 * A failure the person at the terminal can act on. Commands throw it; `runCli` prints
 * `error: <message>` and the hint on the next line, and exits with `exitCode`. Anything else a
 * command throws is treated as a bug.
 */
export class OperatorError extends Error {
  override readonly name = 'OperatorError';
  readonly hint: string | undefined;
  readonly exitCode: number;

  constructor(message: string, options: OperatorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
    if (!Number.isInteger(this.exitCode) || this.exitCode < 1 || this.exitCode > 125) {
      throw new RangeError(`OperatorError exit code must be a whole number from 1 to 125, got ${options.exitCode}`);
    }
  }
}

/** Exit code of a failure that is a bug (sysexits EX_SOFTWARE), distinct from operator errors. */
export const BUG_EXIT_CODE = 70;
