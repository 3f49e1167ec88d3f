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

/** The rule `severityDisagreement` applies, for the API document (a pattern cannot state it). */
export const SEVERITY_BAND_RULE =
  "A severity outside the band of the finding's CVSS base score needs a reason: the score of the newest " +
  `CVSS version that has one (${NEWEST_FIRST.join(', then ')}) is critical from 9.0, high from 7.0, medium ` +
  'from 4.0, low from 0.1 and info at 0.0. A create or change that would leave a finding outside its band ' +
  'without a `severityReason` answers 400 `validation_failed` naming `/severityReason`.';

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

const GERMAN_SEVERITY: Readonly<Record<Severity, string>> = {
  critical: 'kritisch',
  high: 'hoch',
  medium: 'mittel',
  low: 'niedrig',
  info: 'informativ',
};

/**
 * Why a scanner's finding keeps a severity outside its score's band, in the report's language
 * (English unless German): "Rated high by Nessus (High); the CVSS 3.1 base score 5.1 is medium."
 */
export function scannerSeverityReason(
  scanner: string,
  severity: Severity,
  severityRaw: string | null | undefined,
  band: SeverityBand,
  language: string,
): string {
  const raw = severityRaw && severityRaw.toLowerCase() !== severity ? ` (${severityRaw})` : '';
  if (language.split('-')[0]?.toLowerCase() === 'de') {
    const score = band.baseScore.toFixed(1).replace('.', ',');
    return (
      `Von ${scanner} als ${GERMAN_SEVERITY[severity]} eingestuft${raw}; der CVSS-${band.version}-Basiswert ` +
      `${score} entspricht ${GERMAN_SEVERITY[band.band]}.`
    );
  }
  return `Rated ${severity} by ${scanner}${raw}; ${describeBand(band)}.`;
}
