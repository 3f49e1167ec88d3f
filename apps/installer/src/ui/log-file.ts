import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { redact } from './redact.ts';

/**
 * The full log of one installer run: `<home>/logs/installer-<command>-<timestamp>.log`. Lines are
 * kept in memory until the installation directory is known (`install` creates it), then written
 * as they come, each with its time. Secrets are removed first.
 */
export class LogFile {
  private file: string | null = null;
  private pending: string[] = [];
  private failure: string | null = null;

  constructor(
    private readonly command: string,
    private readonly now: () => Date,
  ) {}

  get path(): string | null {
    return this.file;
  }

  /** Why the log could not be written (a full disk), or null. */
  get problem(): string | null {
    return this.failure;
  }

  /**
   * Starts writing under `<home>/logs/`; what was logged before is written first. A log that
   * cannot be written (a full disk) is reported by `problem`, never thrown: the run must finish
   * or roll back all the same.
   */
  attach(home: string): string | null {
    if (this.file) return this.file;
    const dir = path.join(home, 'logs');
    const stamp = this.now()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    const file = path.join(dir, `installer-${this.command}-${stamp}.log`);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o750 });
      appendFileSync(file, this.pending.join(''), { mode: 0o640 });
    } catch (err) {
      this.failure = `${file} cannot be written: ${(err as Error).message}`;
      return null;
    }
    this.file = file;
    this.pending = [];
    return this.file;
  }

  write(line: string): void {
    const text = `${this.now().toISOString()} ${redact(line)}\n`;
    if (!this.file) {
      if (this.failure === null) this.pending.push(text);
      return;
    }
    try {
      appendFileSync(this.file, text);
    } catch (err) {
      // Why keep going: the log is for afterwards; a full disk must not stop a rollback.
      this.failure ??= `${this.file} cannot be written: ${(err as Error).message}`;
    }
  }
}
