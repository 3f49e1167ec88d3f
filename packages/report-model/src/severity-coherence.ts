import type { Cvss, CvssVersion } from './cvss.ts';
import { severityFromCvssScore, type Severity } from './severity.ts';

const NEWEST_FIRST: readonly CvssVersion[] = ['4.0', '3.1', '3.0', '2.0'];

/** The rating a finding's severity is compared with: the newest CVSS version that has a base score. */
export function primaryCvssRating(cvss: readonly Cvss[]): { version: CvssVersion; baseScore: number } | null {
  for (const version of NEWEST_FIRST) {
    const rating = cvss.find((c) => c.version === version && c.baseScore !== null);
    if (rating && rating.baseScore !== null) return { version, baseScore: rating.baseScore };
  }
  return null;
}

export interface SeverityBand {
  version: CvssVersion;
  baseScore: number;
  /** The severity the score's band stands for (0 info, < 4 low, < 7 medium, < 9 high, else critical). */
  band: Severity;
}

/** The CVSS band a severity disagrees with, or null when it agrees or there is no score. */
export function severityDisagreement(finding: { severity: Severity; cvss: readonly Cvss[] }): SeverityBand | null {
  const rating = primaryCvssRating(finding.cvss);
  if (!rating) return null;
  const band = severityFromCvssScore(rating.baseScore);
  return band === finding.severity ? null : { ...rating, band };
}

/** "the CVSS 3.1 base score 5.1 is medium" */
export function describeBand(band: SeverityBand): string {
  return `the CVSS ${band.version} base score ${band.baseScore.toFixed(1)} is ${band.band}`;
}
