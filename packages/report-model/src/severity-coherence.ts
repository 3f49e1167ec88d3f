import type { Cvss, CvssVersion } from './cvss.ts';
import { severityFromCvssScore, severityRank, type Severity } from './severity.ts';

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

/** One scanner result a merge joins: its rating and how a reader names it (`Nessus 57608`). */
export interface MergedResultRating {
  label: string;
  severity: Severity;
  cvss: readonly Cvss[];
  severityReason: string;
}

/**
 * The rating of a finding that several scanner results make (one rule on several hosts, several
 * rules for one template): the highest severity, with the score of the result that set it, or
 * when that result has none, of the highest-rated result that has one. The severity then agrees
 * with that score's band, or the finding carries a reason: the result's own (a scanner rating
 * kept), or one the merge writes naming the results it merged.
 */
export function mergedRating(
  results: readonly MergedResultRating[],
  language: string,
): { severity: Severity; cvss: Cvss[]; severityReason: string } {
  const ranked = [...results].sort((a, b) => severityRank(b.severity) - severityRank(a.severity));
  const worst = ranked[0];
  if (worst === undefined) return { severity: 'info', cvss: [], severityReason: '' };
  const scored = ranked.find((r) => primaryCvssRating(r.cvss) !== null) ?? worst;
  const cvss = [...scored.cvss];
  const band = severityDisagreement({ severity: worst.severity, cvss });
  if (band === null) return { severity: worst.severity, cvss, severityReason: '' };
  if (scored === worst) return { severity: worst.severity, cvss, severityReason: worst.severityReason };
  return {
    severity: worst.severity,
    cvss,
    severityReason: mergeSeverityReason(worst, scored, results, band, language),
  };
}

/** "Rated high: the highest severity of the merged scanner results (Nessus 57608 high, Nessus 10863 medium); the CVSS 3.1 base score 5.3 (of Nessus 10863) is medium." */
function mergeSeverityReason(
  worst: MergedResultRating,
  scored: MergedResultRating,
  results: readonly MergedResultRating[],
  band: SeverityBand,
  language: string,
): string {
  const german = language.split('-')[0]?.toLowerCase() === 'de';
  const shown = results.slice(0, 10);
  const more = results.length - shown.length;
  const list =
    shown.map((r) => `${r.label} ${german ? GERMAN_SEVERITY[r.severity] : r.severity}`).join(', ') +
    (more > 0 ? (german ? ` und ${more} weitere` : ` and ${more} more`) : '');
  if (german) {
    const score = band.baseScore.toFixed(1).replace('.', ',');
    return (
      `Als ${GERMAN_SEVERITY[worst.severity]} eingestuft: der höchste Schweregrad der zusammengeführten ` +
      `Scanner-Ergebnisse (${list}); der CVSS-${band.version}-Basiswert ${score} (von ${scored.label}) ` +
      `entspricht ${GERMAN_SEVERITY[band.band]}.`
    );
  }
  return (
    `Rated ${worst.severity}: the highest severity of the merged scanner results (${list}); ` +
    `the CVSS ${band.version} base score ${band.baseScore.toFixed(1)} (of ${scored.label}) is ${band.band}.`
  );
}
