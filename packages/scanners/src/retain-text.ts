/**
 * Cuts a string to `maxChars`, marking the cut so a reader knows evidence is incomplete.
 * Use for strings that are already independent copies (JSON.parse results).
 */
export function clampText(value: string, maxChars: number): string {
  if (value.length <= maxChars) return value;
  const marker = `\n[truncated: ${value.length - maxChars} more characters]`;
  return value.slice(0, Math.max(0, maxChars - marker.length)) + marker;
}

/**
 * Copies a string before it is stored in a finding, cutting it to `maxChars`.
 *
 * Why copy: saxes hands out slices of the input chunk. V8 keeps the whole parent chunk alive for
 * as long as a slice lives, so storing slices would keep every chunk of a 200 MB file in memory.
 * Concatenating then slicing forces a flat, independent copy.
 */
export function retainText(value: string, maxChars: number = Number.POSITIVE_INFINITY): string {
  const clamped = clampText(value, maxChars);
  // Strings shorter than 13 chars are always copied by V8 when sliced, so they need no work.
  return clamped.length < 13 ? clamped : ` ${clamped}`.slice(1);
}

/**
 * Shares one retained copy of short values that repeat across occurrences (protocol, service,
 * CVSS score text), so a million occurrences do not hold a million copies of "tcp".
 */
export class TextInterner {
  private readonly copies = new Map<string, string>();

  constructor(private readonly maxEntries = 10_000) {}

  intern(value: string, maxChars = 100): string {
    let copy = this.copies.get(value);
    if (copy === undefined || copy.length > maxChars) {
      copy = retainText(value, maxChars);
      if (this.copies.size < this.maxEntries) this.copies.set(copy, copy);
    }
    return copy;
  }
}
