import { Type } from 'typebox';

/** The severity scale, least to most severe; the index is the rank. */
export const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Most severe first: the order reports list findings and summaries in. */
export const SEVERITIES_DESCENDING: readonly Severity[] = [...SEVERITIES].reverse();

export const SeveritySchema = Type.Enum(['critical', 'high', 'medium', 'low', 'info'], {
  description: 'critical, high, medium, low or info.',
});

const RANK: Readonly<Record<Severity, number>> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 };

export function severityRank(severity: Severity): number {
  return RANK[severity];
}

export function isSeverity(value: string): value is Severity {
  return Object.hasOwn(RANK, value);
}

export function maxSeverity(a: Severity, b: Severity): Severity {
  return RANK[a] >= RANK[b] ? a : b;
}

/** Sorts most severe first. */
export function compareSeverityDescending(a: Severity, b: Severity): number {
  return RANK[b] - RANK[a];
}

/** Standard CVSS bands: 0 info, < 4 low, < 7 medium, < 9 high, else critical. */
export function severityFromCvssScore(score: number): Severity {
  if (score <= 0) return 'info';
  if (score < 4) return 'low';
  if (score < 7) return 'medium';
  if (score < 9) return 'high';
  return 'critical';
}
