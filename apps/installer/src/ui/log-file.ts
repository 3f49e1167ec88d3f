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

  constructor(
    private readonly command: string,
    private readonly now: () => Date,
  ) {}

  get path(): string | null {
    return this.file;
  }

  /** Starts writing under `<home>/logs/`; what was logged before is written first. */
  attach(home: string): string {
    if (this.file) return this.file;
    const dir = path.join(home, 'logs');
    mkdirSync(dir, { recursive: true, mode: 0o750 });
    const stamp = this.now()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    this.file = path.join(dir, `installer-${this.command}-${stamp}.log`);
    appendFileSync(this.file, this.pending.join(''), { mode: 0o640 });
    this.pending = [];
    return this.file;
  }

  write(line: string): void {
    const text = `${this.now().toISOString()} ${redact(line)}\n`;
    if (this.file) appendFileSync(this.file, text);
    else this.pending.push(text);
  }
}
