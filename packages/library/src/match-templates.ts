import type { ScanFormat } from '@service/scanners';
import { itemsOfKind, type Library } from './library-item.ts';
import { compileTitlePattern, titlePatternProblem } from './title-pattern.ts';

/**
 * A template as matching sees it: plain data that both a library item and a workspace
 * `finding_templates` row produce (see matchableTemplatesOfLibrary, matchableTemplateOfRow).
 */
export interface MatchableTemplate {
  /** Returned as `templateKey`: the library key, or the row id for workspace templates. */
  key: string;
  /** `<scanner>:<rule id>`, e.g. `nessus:57608`. */
  rules?: readonly string[];
  cves?: readonly string[];
  cwes?: readonly number[];
  titlePatterns?: Readonly<Partial<Record<string, readonly string[]>>>;
}

/** The scanner finding fields matching reads; a parsed `CompleteFinding` fits as it is. */
export interface MatchableFinding {
  source: { scanner: string };
  ruleId: string;
  title: string;
  cves?: readonly string[];
  cwes?: readonly number[];
}

export type MatchedOn = 'rule' | 'cve' | 'cwe' | 'titlePattern';

/** Which template a finding matched, and why: `detail` is `nessus:57608`, `CVE-...`, `CWE-89` or `/pattern/`. */
export interface TemplateMatch {
  templateKey: string;
  matchedOn: MatchedOn;
  detail: string;
}

interface CompiledPattern {
  order: number;
  source: string;
  regex: RegExp;
}

/** Templates prepared for matching many findings. Build once per import with buildTemplateMatchIndex. */
export interface TemplateMatchIndex {
  readonly keys: readonly string[];
  readonly byRule: ReadonlyMap<string, number>;
  readonly byCve: ReadonlyMap<string, number>;
  readonly byCwe: ReadonlyMap<number, number>;
  readonly patterns: ReadonlyMap<string, readonly CompiledPattern[]>;
  /** Patterns left out because they do not compile or could take exponential time. */
  readonly skippedPatterns: ReadonlyArray<{ templateKey: string; pattern: string; problem: string }>;
}

/** Scanner titles are capped before matching so no pattern ever runs over a huge string. */
const TITLE_CHARS = 1_000;

/**
 * Prepares templates for matching. Order is the tie-break: when two templates match a finding
 * on the same level, the one listed first wins. The library's templates come sorted by key;
 * for workspace rows, list the ones you prefer first (we suggest own templates, then global
 * ones, each by creation time and id).
 */
export function buildTemplateMatchIndex(templates: readonly MatchableTemplate[]): TemplateMatchIndex {
  const byRule = new Map<string, number>();
  const byCve = new Map<string, number>();
  const byCwe = new Map<number, number>();
  const patterns = new Map<string, CompiledPattern[]>();
  const skippedPatterns: Array<{ templateKey: string; pattern: string; problem: string }> = [];
  templates.forEach((t, order) => {
    for (const rule of t.rules ?? []) {
      const normalized = normalizeRule(rule);
      if (!byRule.has(normalized)) byRule.set(normalized, order);
    }
    for (const cve of t.cves ?? []) if (!byCve.has(cve.toUpperCase())) byCve.set(cve.toUpperCase(), order);
    for (const cwe of t.cwes ?? []) if (!byCwe.has(cwe)) byCwe.set(cwe, order);
    for (const [scanner, list] of Object.entries(t.titlePatterns ?? {})) {
      for (const source of list ?? []) {
        const problem = titlePatternProblem(source);
        if (problem) {
          skippedPatterns.push({ templateKey: t.key, pattern: source, problem });
          continue;
        }
        const forScanner = patterns.get(scanner.toLowerCase()) ?? [];
        forScanner.push({ order, source, regex: compileTitlePattern(source) });
        patterns.set(scanner.toLowerCase(), forScanner);
      }
    }
  });
  return { keys: templates.map((t) => t.key), byRule, byCve, byCwe, patterns, skippedPatterns };
}

/** `Nessus:57608` and `nessus:57608` are one rule: the scanner part is case-insensitive, the id is not. */
function normalizeRule(rule: string): string {
  const colon = rule.indexOf(':');
  return colon < 0 ? rule : `${rule.slice(0, colon).toLowerCase()}${rule.slice(colon)}`;
}

/**
 * The template for one scanner finding, or null. Precedence: the scanner's exact rule id, then
 * any of the finding's CVEs, then its CWEs, then a title pattern of its scanner. Within a level
 * the template listed first in the index wins; the detail names the first of the finding's
 * CVEs/CWEs (in the finding's order) that template covers.
 */
export function matchTemplates(finding: MatchableFinding, index: TemplateMatchIndex): TemplateMatch | null {
  const scanner = finding.source.scanner.toLowerCase();
  const rule = `${scanner}:${finding.ruleId}`;
  const byRule = index.byRule.get(rule);
  if (byRule !== undefined) return { templateKey: index.keys[byRule]!, matchedOn: 'rule', detail: rule };

  const cve = firstByOrder(
    (finding.cves ?? []).map((c) => c.toUpperCase()),
    index.byCve,
  );
  if (cve) return { templateKey: index.keys[cve.order]!, matchedOn: 'cve', detail: cve.value };

  const cwe = firstByOrder(finding.cwes ?? [], index.byCwe);
  if (cwe) return { templateKey: index.keys[cwe.order]!, matchedOn: 'cwe', detail: `CWE-${cwe.value}` };

  const title = finding.title.length > TITLE_CHARS ? finding.title.slice(0, TITLE_CHARS) : finding.title;
  for (const p of index.patterns.get(scanner) ?? []) {
    if (p.regex.test(title))
      return { templateKey: index.keys[p.order]!, matchedOn: 'titlePattern', detail: `/${p.source}/` };
  }
  return null;
}

function firstByOrder<T>(values: readonly T[], map: ReadonlyMap<T, number>): { value: T; order: number } | null {
  let best: { value: T; order: number } | null = null;
  for (const value of values) {
    const order = map.get(value);
    if (order !== undefined && (best === null || order < best.order)) best = { value, order };
  }
  return best;
}

/** The library's finding templates as matching input, by key. CVEs are the match CVEs and the template's own. */
export function matchableTemplatesOfLibrary(library: Pick<Library, 'items'>): MatchableTemplate[] {
  return itemsOfKind(library, 'finding-template')
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((t) => ({
      key: t.key,
      rules: t.content.match.rules,
      cves: [...new Set([...t.content.match.cves, ...t.content.cves])],
      cwes: t.content.match.cwes,
      titlePatterns: t.content.match.titlePatterns,
    }));
}

/** The columns of a workspace `finding_templates` row that matching reads. */
export const FINDING_TEMPLATE_MATCH_COLUMNS = [
  'id',
  'global_key',
  'scanner_rules',
  'cves',
  'match_cves',
  'match_cwes',
  'title_patterns',
] as const;

export interface FindingTemplateMatchRow {
  id: string;
  scanner_rules: string[];
  cves: string[];
  match_cves: string[];
  match_cwes: number[];
  title_patterns: Partial<Record<ScanFormat, string[]>> | null;
}

/** A workspace template row as matching input; `templateKey` of its matches is the row id. */
export function matchableTemplateOfRow(row: FindingTemplateMatchRow): MatchableTemplate {
  return {
    key: row.id,
    rules: row.scanner_rules,
    cves: [...new Set([...(row.match_cves ?? []), ...(row.cves ?? [])])],
    cwes: row.match_cwes ?? [],
    titlePatterns: row.title_patterns ?? {},
  };
}
