import { severityRank, type Severity } from '@service/report-model';
import {
  MATCHED_ON,
  matchRefusal,
  matchScanFinding,
  type MatchableFinding,
  type SplittableFinding,
  type MatchConfidence,
  type MatchedOn,
  type TemplateMatchIndex,
} from './match-templates.ts';

/** A parsed scanner finding as coverage counts it (a `CompleteFinding` fits). */
export type CoverageFinding = SplittableFinding;

/** One matched finding, with the reasons the match may be wrong (none: not suspected). */
export interface CoverageMatch {
  scanner: string;
  /** `<ruleId>` or `<ruleId>:<matcherName>` */
  rule: string;
  groupKey: string;
  title: string;
  severity: string;
  templateKey: string;
  templateSeverity: string | null;
  matchedOn: MatchedOn;
  confidence: MatchConfidence;
  detail: string;
  suspicions: string[];
}

export interface RuleCoverage {
  /** Distinct non-informational scanner rules (`<ruleId>`, or `<ruleId>:<matcherName>`). */
  total: number;
  /** Rules whose every distinct finding matched a template. */
  matched: number;
  /** Matched rules with a match suspected to be wrong. */
  suspect: number;
}

export interface ScannerCoverage {
  /** Distinct non-informational findings (by scanner and group key). */
  total: number;
  matched: number;
  byMatch: Record<MatchedOn, number>;
  /** Matched findings suspected to be wrong (see `suspectedMatchProblems`). */
  suspect: number;
  rules: RuleCoverage;
  unmatched: Array<{ ruleId: string; groupKey: string; title: string; severity: string }>;
}

export interface CoverageReport {
  byScanner: Record<string, ScannerCoverage>;
  total: number;
  matched: number;
  /** matched / total as a percentage with one decimal; 0 when there is nothing to match. */
  percent: number;
  suspect: number;
  rules: RuleCoverage & { percent: number; suspectPercent: number };
  /** Every match, in the order the findings came. */
  matches: CoverageMatch[];
}

export const percentOf = (matched: number, total: number): number =>
  total === 0 ? 0 : Math.round((matched / total) * 1000) / 10;

const isSeverity = (s: string | null): s is Severity =>
  s === 'info' || s === 'low' || s === 'medium' || s === 'high' || s === 'critical';

/**
 * Why a match may be wrong, by the precision rules of issue 19 (matching refuses these, so they
 * show only for indexes built from other data) and two signs of a template that does not
 * describe the finding: severities two or more steps apart (compliance results aside), and a
 * roll-up carrying many CVEs on a template about a few others.
 */
export function suspectedMatchProblems(
  finding: MatchableFinding & { severity: string },
  match: { templateKey: string; matchedOn: MatchedOn },
  index: TemplateMatchIndex,
): string[] {
  const order = index.keys.indexOf(match.templateKey);
  const templateSeverity = order < 0 ? null : (index.severities[order] ?? null);
  const problems: string[] = [];
  const refusal = matchRefusal(finding, templateSeverity, match.matchedOn);
  if (refusal !== null) problems.push(refusal);
  // Why not for templates scored per instance: their severity is a typical one; the finding keeps the scanner's.
  else if (
    isSeverity(templateSeverity) &&
    isSeverity(finding.severity) &&
    match.matchedOn !== 'compliance' &&
    !(order >= 0 && index.instanceScored[order])
  ) {
    // Why not for compliance: an audit's warnings are rated medium by Nessus and are, by design, no weakness yet.
    const distance = Math.abs(severityRank(finding.severity) - severityRank(templateSeverity));
    if (distance >= 2) problems.push(`scanner says ${finding.severity}, template is ${templateSeverity}`);
  }
  const cves = new Set((finding.cves ?? []).map((c) => c.toUpperCase()));
  const templateCves = order < 0 ? 0 : (index.cveCounts[order] ?? 0);
  if (match.matchedOn !== 'cve' && cves.size >= 3 && templateCves > 0) {
    let covered = 0;
    for (const cve of cves) if (index.byCve.get(cve)?.includes(order)) covered++;
    if (covered * 2 < cves.size)
      problems.push(
        `a roll-up of ${cves.size} CVEs on a template about ${templateCves} CVE(s), ${covered} of them shared`,
      );
  }
  return problems;
}

function* parts(findings: Iterable<CoverageFinding>, index: TemplateMatchIndex) {
  for (const finding of findings) yield* matchScanFinding(finding, index);
}

const emptyByMatch = (): Record<MatchedOn, number> =>
  Object.fromEntries(MATCHED_ON.map((m) => [m, 0])) as Record<MatchedOn, number>;

/**
 * The share of distinct scanner findings (one per scanner and group key, as an import makes them:
 * a rule whose occurrences take different templates counts once per template) that some template
 * matches, and the same by distinct scanner rule: what the library covers of real scans, and which
 * of its matches look wrong. Non-informational findings by default; `informational` counts those
 * the scanner rates info instead.
 */
export function measureCoverage(
  findings: Iterable<CoverageFinding>,
  index: TemplateMatchIndex,
  options: { informational?: boolean } = {},
): CoverageReport {
  const wanted = options.informational === true;
  const byScanner: Record<string, ScannerCoverage> = {};
  const seen = new Set<string>();
  const rules = new Map<string, { scanner: string; matched: boolean; suspect: boolean }>();
  const matches: CoverageMatch[] = [];
  let total = 0;
  let matched = 0;
  let suspect = 0;
  for (const { finding, match } of parts(findings, index)) {
    if ((finding.severity === 'info') !== wanted) continue;
    const scanner = finding.source.scanner.toLowerCase();
    const id = `${scanner}\u0000${finding.groupKey}`;
    if (seen.has(id)) continue;
    seen.add(id);
    let entry = byScanner[scanner];
    if (entry === undefined) {
      entry = {
        total: 0,
        matched: 0,
        byMatch: emptyByMatch(),
        suspect: 0,
        rules: { total: 0, matched: 0, suspect: 0 },
        unmatched: [],
      };
      byScanner[scanner] = entry;
    }
    const rule = finding.matcherName ? `${finding.ruleId}:${finding.matcherName}` : finding.ruleId;
    const ruleKey = `${scanner}\u0000${rule}`;
    const ruleEntry = rules.get(ruleKey) ?? { scanner, matched: true, suspect: false };
    rules.set(ruleKey, ruleEntry);
    entry.total++;
    total++;
    if (match) {
      entry.matched++;
      entry.byMatch[match.matchedOn]++;
      matched++;
      const suspicions = suspectedMatchProblems(finding, match, index);
      if (suspicions.length > 0) {
        entry.suspect++;
        suspect++;
        ruleEntry.suspect = true;
      }
      const order = index.keys.indexOf(match.templateKey);
      matches.push({
        scanner,
        rule,
        groupKey: finding.groupKey,
        title: finding.title,
        severity: finding.severity,
        templateKey: match.templateKey,
        templateSeverity: order < 0 ? null : (index.severities[order] ?? null),
        matchedOn: match.matchedOn,
        confidence: match.confidence,
        detail: match.detail,
        suspicions,
      });
    } else {
      ruleEntry.matched = false;
      entry.unmatched.push({
        ruleId: finding.ruleId,
        groupKey: finding.groupKey,
        title: finding.title,
        severity: finding.severity,
      });
    }
  }
  const overallRules = { total: 0, matched: 0, suspect: 0 };
  for (const r of rules.values()) {
    const counts = byScanner[r.scanner]!.rules;
    for (const c of [counts, overallRules]) {
      c.total++;
      if (r.matched) c.matched++;
      if (r.matched && r.suspect) c.suspect++;
    }
  }
  return {
    byScanner,
    total,
    matched,
    percent: percentOf(matched, total),
    suspect,
    rules: {
      ...overallRules,
      percent: percentOf(overallRules.matched, overallRules.total),
      suspectPercent: percentOf(overallRules.suspect, overallRules.total),
    },
    matches,
  };
}
