/** A failure the operator can act on: `main.ts` prints message and hint on one line and exits with exitCode. */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly hint: string;
  readonly exitCode: number;

  constructor(message: string, hint: string, exitCode = 1) {
    super(message);
    this.hint = hint;
    this.exitCode = exitCode;
  }
}
