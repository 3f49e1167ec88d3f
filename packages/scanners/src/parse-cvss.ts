import type { CvssVersion } from './normalized-finding.ts';

/** Version of a CVSS vector from its prefix; null when it cannot be told. */
export function cvssVersionOfVector(vector: string): CvssVersion | null {
  const match = /^CVSS:(\d\.\d)\//.exec(vector);
  if (match !== null) {
    const version = match[1];
    return version === '3.0' || version === '3.1' || version === '4.0' ? version : null;
  }
  // Why: v2 vectors have no prefix (Nessus writes `CVSS2#`), but only v2 has the Au metric.
  if (vector.startsWith('CVSS2#') || /(^|\/)Au:[MSN]/.test(vector)) return '2.0';
  return null;
}

/** Strips Nessus' `CVSS2#` prefix; adds `CVSS:3.0/` to a v3 vector written without its prefix. */
export function normalizeCvssVector(vector: string, version: CvssVersion): string {
  let value = vector.trim();
  if (value.startsWith('CVSS2#')) value = value.slice(6);
  if ((version === '3.0' || version === '3.1') && !value.startsWith('CVSS:')) value = `CVSS:${version}/${value}`;
  return value;
}

/** A CVSS score between 0 and 10, or null for empty or nonsense text. */
export function parseCvssScore(text: string | number | undefined | null): number | null {
  if (text === undefined || text === null) return null;
  const value = typeof text === 'number' ? text : text.trim() === '' ? Number.NaN : Number(text);
  return Number.isFinite(value) && value >= 0 && value <= 10 ? value : null;
}
