const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'] as const;

/**
 * A size as a person reads it: bytes below 1 KiB, then the largest unit that keeps the number at
 * least 1, with three significant digits (`512 B`, `1.50 KiB`, `12.3 MiB`, `412 GiB`). Never
 * `0.00 GiB` for a few megabytes.
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return 'unknown';
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  // Why the second check: 1023.96 KiB rounds to "1024 KiB"; show it as the next unit.
  const shown = value.toFixed(digits);
  if (Number(shown) >= 1024 && unit < UNITS.length - 1) return `1.00 ${UNITS[unit + 1]}`;
  return `${shown} ${UNITS[unit]}`;
}

/** An age as a person reads it: `40 s`, `12 min`, `5 h`, `3 days`. */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
}
