// What an import does to a report's findings, decided before anything is written: which scanner
// results merge into a finding the report has, which become one new finding together (one per
// library template), and what each finding then holds. Pure; `FindingRepository.mergeScanFindings`
// reads the rows this needs and writes the plan.
import {
  applyTemplateContent,
  findingFromColumns,
  mergeAffectedAssets,
  mergedRating,
  severityRank,
  TEXT_LIMITS,
  type Finding,
  type FindingColumns,
  type Severity,
} from '@service/report-model';
import { findingOfScanResult, SCAN_FORMAT_LABELS, type CompleteFinding, type ScanFormat } from '@service/scanners';
import type { MatchedScanResult, TemplateMatch } from '../finding-library/finding-template-repository.ts';

export interface ScanImportOptions {
  /** Findings below this severity are skipped. */
  minSeverity: Severity;
  /**
   * Default true: results merge into the report's findings of the same rule or template. False
   * (a retest's new results): they only create findings, and the report's findings stay as they are.
   */
  intoExisting?: boolean;
}

export interface ImportedFinding {
  id: string | null;
  title: string;
  severity: Severity;
  scanner: string;
  ruleId: string;
  groupKey: string;
  outcome: 'created' | 'merged' | 'skipped';
  /**
   * Why a result merged into a finding: the finding already had this rule (`rule`), or the rule
   * matched the template another rule's finding came from (`template`: one finding per weakness).
   */
  mergedBy?: 'rule' | 'template';
  /** Places (host, port, URL...) added to the finding by this import. */
  assetsAdded: number;
  template: {
    id: string;
    title: string;
    key: string | null;
    matchedOn: TemplateMatch['matchedOn'];
    confidence: TemplateMatch['confidence'];
    detail: string;
  } | null;
}

export interface ScanImportSummary {
  created: number;
  merged: number;
  skipped: number;
  findings: ImportedFinding[];
  /** What the import decided that a person should know: a template's CVSS left out, a missing translation. */
  notes: string[];
}

/** `<scanner>:<group key>`: the identity of a scanner finding within a report across imports. */
export function scannerKey(f: CompleteFinding): string {
  return `${f.source.scanner.toLowerCase()}:${f.groupKey}`;
}

/** A finding of the report that results may merge into. */
export type ExistingFinding = FindingColumns & { id: string; scanner_keys: string[] };

/** The report's findings that results of this import name: by scanner key, and by the template they came from. */
export interface ExistingFindings {
  byKey: ReadonlyMap<string, ExistingFinding>;
  byTemplate: ReadonlyMap<string, ExistingFinding>;
}

/** The results of one scanner key (the same key twice in one payload is one finding). */
export interface ResultGroup {
  key: string;
  results: CompleteFinding[];
  match: TemplateMatch | null;
}

/** One finding the import writes: an existing row it adds to, or a new one. */
export interface MergeTarget {
  /** The existing row, or null for a new finding (its id is known once inserted). */
  existingId: string | null;
  finding: Finding;
  keys: string[];
  /** For an existing row: whether this import adds anything to it. */
  changed: boolean;
  entries: Array<Omit<ImportedFinding, 'id' | 'title' | 'severity'>>;
}

export interface MergePlan {
  targets: MergeTarget[];
  notes: string[];
}

/** Results below the import's minimum severity, as the answer lists them, and the results kept. */
export function keepFromSeverity(
  results: readonly MatchedScanResult[],
  minSeverity: Severity,
): { kept: MatchedScanResult[]; skipped: ImportedFinding[] } {
  const kept: MatchedScanResult[] = [];
  const skipped: ImportedFinding[] = [];
  for (const r of results) {
    if (severityRank(r.result.severity) >= severityRank(minSeverity)) kept.push(r);
    else
      skipped.push({
        ...resultBase(r.result),
        title: r.result.title,
        severity: r.result.severity,
        id: null,
        outcome: 'skipped',
        assetsAdded: 0,
        template: null,
      });
  }
  return { kept, skipped };
}

/** Results by scanner key, in order of first appearance. */
export function groupByKey(results: readonly MatchedScanResult[]): ResultGroup[] {
  const groups = new Map<string, ResultGroup>();
  for (const { result, match } of results) {
    const key = scannerKey(result);
    const group = groups.get(key);
    if (group) group.results.push(result);
    else groups.set(key, { key, results: [result], match });
  }
  return [...groups.values()];
}

/**
 * The plan: a group whose key a finding of the report has merges into it (`rule`); else one whose
 * template a finding of the report (or an earlier group of this import) came from joins that
 * finding (`template`); else it becomes a new finding, with its template's text. A new finding
 * of several results is rated by `mergedRating`, so its severity agrees with its score or says why.
 */
export function planScanMerge(groups: readonly ResultGroup[], existing: ExistingFindings, language: string): MergePlan {
  const targets: MergeTarget[] = [];
  const notes: string[] = [];
  const ofRow = new Map<string, MergeTarget>();
  const fresh = new Map<MergeTarget, { parts: RatedPart[]; group: ResultGroup }>();
  const newByTemplate = new Map<string, MergeTarget>();
  const rowTarget = (row: ExistingFinding): MergeTarget => {
    let target = ofRow.get(row.id);
    if (!target) {
      target = {
        existingId: row.id,
        finding: findingFromColumns(row),
        keys: row.scanner_keys,
        changed: false,
        entries: [],
      };
      ofRow.set(row.id, target);
      targets.push(target);
    }
    return target;
  };
  for (const group of groups) {
    const incoming = groupFinding(group, language);
    const templateId = group.match?.template.id;
    const row = existing.byKey.get(group.key) ?? (templateId ? existing.byTemplate.get(templateId) : undefined);
    const target = row ? rowTarget(row) : templateId ? newByTemplate.get(templateId) : undefined;
    if (!target) {
      const created: MergeTarget = {
        existingId: null,
        finding: incoming.finding,
        keys: [group.key],
        changed: true,
        entries: [],
      };
      created.entries.push({
        ...resultBase(group.results[0]!),
        outcome: 'created',
        assetsAdded: incoming.finding.affectedAssets.length,
        template: templateInfo(group.match),
      });
      targets.push(created);
      fresh.set(created, { parts: incoming.parts, group });
      if (templateId) newByTemplate.set(templateId, created);
      continue;
    }
    // Why: the same rule again, or another rule for the weakness a finding already stands for.
    const byRule = existing.byKey.has(group.key);
    const merged = mergeScannerFinding(target.finding, incoming.finding);
    target.finding = merged.finding;
    target.changed ||= merged.changed || !target.keys.includes(group.key);
    if (!target.keys.includes(group.key)) target.keys.push(group.key);
    fresh.get(target)?.parts.push(...incoming.parts);
    target.entries.push({
      ...resultBase(group.results[0]!),
      outcome: 'merged',
      mergedBy: byRule ? 'rule' : 'template',
      assetsAdded: merged.assetsAdded,
      template: byRule ? null : templateInfo(group.match),
    });
  }
  for (const [target, { parts, group }] of fresh) {
    target.finding = { ...target.finding, ...mergedRating(parts, language) };
    if (group.match) target.finding = withTemplate(target.finding, group, language, notes);
  }
  return { targets, notes };
}

/** The answer's entries of the written plan, each naming the finding it went into as it now is. */
export function importedFindings(
  targets: readonly MergeTarget[],
  ids: ReadonlyMap<MergeTarget, string>,
): ImportedFinding[] {
  return targets.flatMap((t) =>
    t.entries.map((entry) => ({
      ...entry,
      id: t.existingId ?? ids.get(t)!,
      title: t.finding.title,
      severity: t.finding.severity,
    })),
  );
}

/** A scanner result's rating as the merge weighs it, named as a reader knows it (`Nessus 57608`). */
type RatedPart = Parameters<typeof mergedRating>[0][number];

/** The finding of a group's results (one, or the same key repeated), and each result's rating. */
function groupFinding(group: ResultGroup, language: string): { finding: Finding; parts: RatedPart[] } {
  const parts: RatedPart[] = [];
  let finding: Finding | null = null;
  for (const result of group.results) {
    const next = findingOfScanResult(result, language);
    parts.push({
      label: `${SCAN_FORMAT_LABELS[result.source.scanner as ScanFormat] ?? result.source.scanner} ${result.ruleId}`,
      severity: next.severity,
      cvss: next.cvss,
      severityReason: next.severityReason,
    });
    finding = finding ? mergeScannerFinding(finding, next).finding : next;
  }
  return { finding: finding!, parts };
}

/** A new finding with its template's curated text in the report's language; what the import should say goes to `notes`. */
function withTemplate(finding: Finding, group: ResultGroup, language: string, notes: string[]): Finding {
  const t = group.match!.template;
  const first = group.results[0]!;
  const applied = applyTemplateContent(finding, t.content);
  for (const note of applied.notes) notes.push(`${first.source.scanner}:${first.ruleId}: ${note}`);
  if (t.untranslated)
    notes.push(
      `${first.source.scanner}:${first.ruleId}: the template "${t.content.title}" has no text in ` +
        `${language}; its ${t.untranslated} text was used.`,
    );
  return {
    ...applied.finding,
    source: { ...applied.finding.source, templateId: t.id, ...(t.globalKey ? { templateKey: t.globalKey } : {}) },
  };
}

function templateInfo(match: TemplateMatch | null): ImportedFinding['template'] {
  if (!match) return null;
  const t = match.template;
  return {
    id: t.id,
    title: t.content.title,
    key: t.globalKey,
    matchedOn: match.matchedOn,
    detail: match.detail,
    confidence: match.confidence,
  };
}

/** The scanner rule an answer entry is about. */
function resultBase(f: CompleteFinding) {
  return { scanner: f.source.scanner, ruleId: f.ruleId, groupKey: f.groupKey };
}

const unique = <T>(values: readonly T[]) => [...new Set(values)];
/** A union of lists kept within the model's cap for that list. */
const union = <T>(cap: number, ...lists: ReadonlyArray<readonly T[]>) => unique(lists.flat()).slice(0, cap);

/**
 * A finding with another scanner result merged in: new places appended (with evidence at known
 * places), CVEs and CWEs joined; nothing removed. The rating stays (a new finding is rated once all
 * its results are in; an existing one keeps the rating it has).
 */
function mergeScannerFinding(
  current: Finding,
  incoming: Finding,
): { finding: Finding; changed: boolean; assetsAdded: number } {
  const assets = mergeAffectedAssets(current.affectedAssets, incoming.affectedAssets);
  const cves = union(TEXT_LIMITS.cves, current.cves, incoming.cves);
  const cwes = union(TEXT_LIMITS.cwes, current.cwes, incoming.cwes);
  const changed = assets.changed || cves.length !== current.cves.length || cwes.length !== current.cwes.length;
  return {
    finding: { ...current, affectedAssets: assets.assets, cves, cwes },
    changed,
    assetsAdded: assets.added,
  };
}
