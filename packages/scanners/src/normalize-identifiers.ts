const CVE_PATTERN = /^CVE-\d{4}-\d{4,19}$/;
const CWE_PATTERN = /^(?:CWE)?[-:\s]*0*(\d{1,6})$/i;

/** `cve-2018-15473 ` → `CVE-2018-15473`; anything that is not a CVE id → null. */
export function normalizeCve(raw: string): string | null {
  const value = raw.trim().toUpperCase();
  return CVE_PATTERN.test(value) ? value : null;
}

/** `79`, `CWE-79`, `cwe-79`, `CWE:79` → 79; junk such as `cwe-` or `NVD-CWE-Other` → null. */
export function parseCweId(raw: string): number | null {
  const match = CWE_PATTERN.exec(raw.trim());
  if (match === null) return null;
  const id = Number(match[1]);
  return id > 0 ? id : null;
}

/**
 * Splits a value that scanners give as a list, a comma-separated string or null.
 * Why: Nuclei templates write `cve-id`, `cwe-id`, `reference` and `tags` in all three shapes.
 */
export function toStringList(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) {
    const out: string[] = [];
    for (const item of value) if (typeof item === 'string' || typeof item === 'number') out.push(String(item));
    return out;
  }
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (typeof value === 'number') return [String(value)];
  return [];
}
