import { LIMITS } from './limits.ts';

/**
 * Collects warnings for a ParseResult, keeping at most LIMITS.warnings of them.
 * Why: a file with a million odd records must not produce a million strings.
 */
export class WarningList {
  private readonly items: string[] = [];
  private dropped = 0;

  add(message: string): void {
    if (this.items.length < LIMITS.warnings) this.items.push(message);
    else this.dropped++;
  }

  toArray(): string[] {
    return this.dropped === 0 ? [...this.items] : [...this.items, `${this.dropped} more warnings were not kept`];
  }
}
