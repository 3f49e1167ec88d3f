import {
  newestVersion,
  scoreCvssVector,
  SEVERITIES_DESCENDING,
  type AffectedAsset,
  type Cvss,
  type ReportDocument,
  type ReportDocumentFinding,
  type Severity,
} from '@service/report-model';
import type { ReportLocale } from './messages/report-locale.ts';

/**
 * The values a report shows the same way in our layout and in a customer's template: counts per
 * severity, the CVSS rating a table shows, asset locations, dates. Words come from the message
 * catalogue (`messages/`), through the report's locale.
 */

/** Findings per severity, every severity present (0 when none), most severe first when iterated. */
export function countSeverities(findings: readonly ReportDocumentFinding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  for (const f of findings) counts[f.severity] = (counts[f.severity] ?? 0) + 1;
  return counts;
}

export { SEVERITIES_DESCENDING };

export interface CvssRating {
  version: string;
  vector: string | null;
  /** The base score, computed from the vector when only the vector is known; null when neither gives one. */
  score: number | null;
}

/** Every CVSS rating of a finding with a score where one can be had. */
export function cvssRatings(cvss: readonly Cvss[]): CvssRating[] {
  return cvss.map((c) => {
    let score = c.baseScore;
    if (score === null && c.vector) {
      try {
        score = scoreCvssVector(c.vector).base;
      } catch {
        score = null;
      }
    }
    return { version: c.version, vector: c.vector, score };
  });
}

const VERSION_RANK: Record<string, number> = { '4.0': 4, '3.1': 3, '3.0': 2, '2.0': 1 };

/** The rating a summary table shows: the newest CVSS version that has a score, else the newest one. */
export function primaryCvss(cvss: readonly Cvss[]): CvssRating | null {
  const ratings = cvssRatings(cvss);
  if (ratings.length === 0) return null;
  const byVersion = [...ratings].sort((a, b) => (VERSION_RANK[b.version] ?? 0) - (VERSION_RANK[a.version] ?? 0));
  return byVersion.find((r) => r.score !== null) ?? byVersion[0]!;
}

/** `host:port/protocol` as one location, e.g. `shop.example.com:443/tcp`; the URL is shown on its own. */
export function assetLocation(a: AffectedAsset): string {
  let s = a.host ?? a.ip ?? '';
  if (a.host && a.ip && a.ip !== a.host) s += ` (${a.ip})`;
  if (a.port !== undefined && a.port !== null) s += `:${a.port}`;
  if (a.protocol) s += `/${a.protocol}`;
  return s;
}

/** The testing period as the cover page shows it: "4 March 2024 – 8 March 2024", one date, or ''. */
export function formatTestingPeriod(project: ReportDocument['project'], locale: ReportLocale): string {
  const start = locale.date(project.startDate);
  const end = locale.date(project.endDate);
  if (start && end) return start === end ? start : `${start} – ${end}`;
  return start || end;
}

/** A moment as a date in the report's language ("now" on the cover page). */
export function formatDay(now: Date, locale: ReportLocale): string {
  return locale.date(now.toISOString().slice(0, 10));
}

/** The day a report carries: its newest version's, else the day of the export. */
export function reportDay(doc: ReportDocument, now: Date, locale: ReportLocale): string {
  const newest = newestVersion(doc.versionHistory);
  return newest ? locale.date(newest.date) : formatDay(now, locale);
}
