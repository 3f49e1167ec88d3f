import { matchTemplates, type MatchableFinding, type MatchedOn, type TemplateMatchIndex } from './match-templates.ts';

/** A parsed scanner finding as coverage counts it (a `CompleteFinding` fits). */
export interface CoverageFinding extends MatchableFinding {
  groupKey: string;
  severity: string;
}

export interface ScannerCoverage {
  /** Distinct non-informational findings (by scanner and group key). */
  total: number;
  matched: number;
  byMatch: Record<MatchedOn, number>;
  unmatched: Array<{ ruleId: string; groupKey: string; title: string; severity: string }>;
}

export interface CoverageReport {
  byScanner: Record<string, ScannerCoverage>;
  total: number;
  matched: number;
  /** matched / total as a percentage with one decimal; 0 when there is nothing to match. */
  percent: number;
}

export const percentOf = (matched: number, total: number): number =>
  total === 0 ? 0 : Math.round((matched / total) * 1000) / 10;

/**
 * The share of distinct non-informational scanner findings (one per scanner and group key,
 * severity above info) that some template matches: what the library covers of real scans.
 */
export function measureCoverage(findings: Iterable<CoverageFinding>, index: TemplateMatchIndex): CoverageReport {
  const byScanner: Record<string, ScannerCoverage> = {};
  const seen = new Set<string>();
  let total = 0;
  let matched = 0;
  for (const finding of findings) {
    if (finding.severity === 'info') continue;
    const scanner = finding.source.scanner.toLowerCase();
    const id = `${scanner}\u0000${finding.groupKey}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const entry = (byScanner[scanner] ??= {
      total: 0,
      matched: 0,
      byMatch: { rule: 0, cve: 0, cwe: 0, titlePattern: 0 },
      unmatched: [],
    });
    entry.total++;
    total++;
    const match = matchTemplates(finding, index);
    if (match) {
      entry.matched++;
      entry.byMatch[match.matchedOn]++;
      matched++;
    } else {
      entry.unmatched.push({
        ruleId: finding.ruleId,
        groupKey: finding.groupKey,
        title: finding.title,
        severity: finding.severity,
      });
    }
  }
  return { byScanner, total, matched, percent: percentOf(matched, total) };
}
