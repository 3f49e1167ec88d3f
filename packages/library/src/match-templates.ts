import { severityRank, type Severity } from '@service/report-model';
import {
  compileTitlePattern,
  cpeCovers,
  normalizeCpe,
  OCCURRENCE_CONDITION_KINDS,
  parseScannerRule,
  SCAN_FORMATS,
  titlePatternProblem,
  type RuleCondition,
  type ScanFormat,
} from '@service/scanners';
import { itemsOfKind, type Library } from './library-item.ts';

/**
 * A template as matching sees it: plain data that both a library item and a workspace
 * `finding_templates` row produce (see matchableTemplatesOfLibrary, matchableTemplateOfRow).
 */
export interface MatchableTemplate {
  /** Returned as `templateKey`: the library key, or the row id for workspace templates. */
  key: string;
  /**
   * `<scanner>:<rule>`: an exact rule id (`nessus:57608`, `nuclei:<template-id>:<matcher>`) or
   * conditions (`nessus:family=Ubuntu Local Security Checks`, `nmap:cpe=cpe:/a:openbsd:openssh & type=cve`).
   */
  rules?: readonly string[];
  cves?: readonly string[];
  cwes?: readonly number[];
  titlePatterns?: Readonly<Partial<Record<string, readonly string[]>>>;
  /** The template's severity: the precision rules compare it with the scanner's. Unknown: not compared. */
  severity?: string;
  /**
   * A generic template (missing patches, outdated software, ...): its title patterns and
   * conditions are tried only after those of every specific template.
   */
  fallback?: boolean;
  /** No fixed score (`scoreFrom: scanner`): the severity is a typical one, the scanner's is used. */
  instanceScored?: boolean;
  /**
   * What the group key of a finding split off by this template's occurrence conditions ends with
   * (`<group key>|<this>`): stable across imports. Default `key`.
   */
  groupKey?: string;
}

/** One occurrence as matching reads it: its severity, the scanner's detail of it, its output. */
export interface MatchableOccurrence {
  severity?: string;
  detail?: string;
  compliance?: { result: string };
  evidence?: { output?: string; extracted?: readonly string[] };
}

/** The scanner finding fields matching reads; a parsed `CompleteFinding` fits as it is. */
export interface MatchableFinding {
  source: { scanner: string };
  ruleId: string;
  title: string;
  /** The scanner's severity: an informational result never takes a weakness template. */
  severity?: string;
  cves?: readonly string[];
  cwes?: readonly number[];
  /** Nuclei matcher name, Nmap script condition: `<ruleId>:<matcherName>` is tried before `<ruleId>`. */
  matcherName?: string;
  pluginFamily?: string;
  cpes?: readonly string[];
  tags?: readonly string[];
  checkType?: string;
  /** For grouped compliance audits: the result (`compliance=`) is read from the first occurrence. */
  occurrences?: readonly MatchableOccurrence[];
}

/**
 * How a finding matched: its exact rule id, several conditions of one rule (`condition`), a
 * compliance result, its CVEs, a title pattern, a plugin family, a CPE, a Nuclei tag, a check
 * type, or its CWEs.
 */
export type MatchedOn =
  | 'rule'
  | 'condition'
  | 'compliance'
  | 'cve'
  | 'titlePattern'
  | 'family'
  | 'cpe'
  | 'tag'
  | 'type'
  | 'cwe';

export const MATCHED_ON: readonly MatchedOn[] = [
  'rule',
  'condition',
  'compliance',
  'cve',
  'titlePattern',
  'family',
  'cpe',
  'tag',
  'type',
  'cwe',
];

/**
 * How sure the match is: `high` for an exact rule id, a rule with several conditions or a CVE
 * family that covers all of the finding's CVEs; `medium` for a title pattern or a CVE family
 * covering at least half of them; `low` for a plugin family, CPE, tag or type alone, a generic
 * (fallback) template, or a CWE.
 */
export type MatchConfidence = 'high' | 'medium' | 'low';

/**
 * Which template a finding matched, and why: `detail` is the rule (`nessus:57608`,
 * `nessus:family=Windows : Microsoft Bulletins`), the CVE (`CVE-2021-44228`, or
 * `CVE-2021-44228 (2 of 2 CVEs)`), `CWE-89` or `/pattern/`.
 */
export interface TemplateMatch {
  templateKey: string;
  matchedOn: MatchedOn;
  detail: string;
  confidence: MatchConfidence;
}

interface Candidate {
  order: number;
  /** precedence level: lower wins (see matchTemplates) */
  level: number;
  specificity: number;
  matchedOn: MatchedOn;
  confidence: MatchConfidence;
  detail: string;
  test: (finding: PreparedFinding) => boolean;
  /** For a variant: the conditions about the rule alone, true when some occurrence of the finding may take it. */
  ruleTest?: (finding: PreparedFinding) => boolean;
}

/** Templates prepared for matching many findings. Build once per import with buildTemplateMatchIndex. */
export interface TemplateMatchIndex {
  readonly keys: readonly string[];
  /** what split-off group keys end with, per template */
  readonly groupKeys: readonly string[];
  readonly severities: readonly (Severity | null)[];
  /** per template: scored per instance, its severity only a typical one */
  readonly instanceScored: readonly boolean[];
  /** how many CVEs each template covers */
  readonly cveCounts: readonly number[];
  readonly byRule: ReadonlyMap<string, number>;
  /** CVE → the templates covering it, and how many CVEs each template covers in all */
  readonly byCve: ReadonlyMap<string, readonly number[]>;
  readonly byCwe: ReadonlyMap<number, number>;
  /** per scanner: conditions and title patterns, sorted by precedence */
  readonly candidates: ReadonlyMap<string, readonly Candidate[]>;
  /** Patterns and rules left out because they do not compile, could take exponential time or are malformed. */
  readonly skippedPatterns: ReadonlyArray<{ templateKey: string; pattern: string; problem: string }>;
}

/** Scanner titles are capped before matching so no pattern ever runs over a huge string. */
const TITLE_CHARS = 1_000;

/** A CVE family must cover at least this share of a finding's CVEs (roll-ups carry many). */
const CVE_SHARE = 0.5;

const LEVEL = {
  /** a rule with an occurrence condition: a variant of a scanner rule, tried on each occurrence first */
  variant: 0,
  rule: 1,
  specificCondition: 2,
  cve: 3,
  titlePattern: 4,
  broadCondition: 5,
  fallback: 6,
  cwe: 7,
} as const;

const isSeverity = (s: string | null | undefined): s is Severity =>
  s === 'info' || s === 'low' || s === 'medium' || s === 'high' || s === 'critical';

/**
 * Prepares templates for matching. Order is the last tie-break: when two templates match a
 * finding equally well, the one listed first wins. The library's templates come sorted by key;
 * for workspace rows, list the ones you prefer first (we suggest own templates, then global
 * ones, each by creation time and id).
 */
export function buildTemplateMatchIndex(templates: readonly MatchableTemplate[]): TemplateMatchIndex {
  const byRule = new Map<string, number>();
  const byCve = new Map<string, number[]>();
  const byCwe = new Map<number, number>();
  const candidates = new Map<string, Candidate[]>();
  const skippedPatterns: Array<{ templateKey: string; pattern: string; problem: string }> = [];
  const add = (scanner: string, candidate: Candidate) => {
    const list = candidates.get(scanner) ?? [];
    list.push(candidate);
    candidates.set(scanner, list);
  };
  templates.forEach((t, order) => {
    const fallback = t.fallback === true;
    for (const rule of t.rules ?? []) {
      const colon = rule.indexOf(':');
      const scanner = rule.slice(0, colon).toLowerCase();
      const body = rule.slice(colon + 1);
      if (colon < 0 || !(SCAN_FORMATS as readonly string[]).includes(scanner)) {
        skippedPatterns.push({ templateKey: t.key, pattern: rule, problem: 'not of the form <scanner>:<rule>' });
        continue;
      }
      const parsed = parseScannerRule(scanner as ScanFormat, body);
      if (parsed.rule === null) {
        skippedPatterns.push({ templateKey: t.key, pattern: rule, problem: parsed.problem });
        continue;
      }
      if (parsed.rule.form === 'id') {
        const key = `${scanner}:${body}`;
        if (!byRule.has(key)) byRule.set(key, order);
        continue;
      }
      add(scanner, conditionCandidate(order, `${scanner}:${body}`, parsed.rule.conditions, fallback));
    }
    for (const cve of t.cves ?? []) {
      const list = byCve.get(cve.toUpperCase()) ?? [];
      if (!list.includes(order)) list.push(order);
      byCve.set(cve.toUpperCase(), list);
    }
    for (const cwe of t.cwes ?? []) if (!byCwe.has(cwe)) byCwe.set(cwe, order);
    for (const [scanner, list] of Object.entries(t.titlePatterns ?? {})) {
      for (const source of list ?? []) {
        const problem = titlePatternProblem(source);
        if (problem) {
          skippedPatterns.push({ templateKey: t.key, pattern: source, problem });
          continue;
        }
        const regex = compileTitlePattern(source);
        add(scanner.toLowerCase(), {
          order,
          level: fallback ? LEVEL.fallback : LEVEL.titlePattern,
          specificity: literalWeight(source),
          matchedOn: 'titlePattern',
          confidence: fallback ? 'low' : 'medium',
          detail: `/${source}/`,
          test: (f) => regex.test(f.title),
        });
      }
    }
  });
  for (const list of candidates.values())
    list.sort((a, b) => a.level - b.level || b.specificity - a.specificity || a.order - b.order);
  return {
    keys: templates.map((t) => t.key),
    groupKeys: templates.map((t) => t.groupKey ?? t.key),
    severities: templates.map((t) => (isSeverity(t.severity) ? t.severity : null)),
    instanceScored: templates.map((t) => t.instanceScored === true),
    cveCounts: templates.map((t) => new Set((t.cves ?? []).map((c) => c.toUpperCase())).size),
    byRule,
    byCve,
    byCwe,
    candidates,
    skippedPatterns,
  };
}

/** A finding with what matching compares computed once. */
interface PreparedFinding {
  scanner: string;
  ruleId: string;
  /** `<ruleId>:<matcherName>`, or '' */
  ruleWithMatcher: string;
  title: string;
  severity: Severity | null;
  family: string;
  cpes: string[];
  tags: ReadonlySet<string>;
  cves: ReadonlySet<string>;
  checkType: string;
  compliance: string;
  observation: boolean;
  /** The finding carries a CVE, or its rule id is one (a Nuclei CVE template): a known vulnerability. */
  namesCve: boolean;
  /** Set when one occurrence is matched: variant rules are tried, on its severity, detail and output. */
  occurrence: { detail: string; output: string } | null;
}

/** Occurrence text is capped before matching, as titles are: patterns never run over huge evidence. */
const OCCURRENCE_CHARS = 4_000;

const capped = (text: string | undefined, max: number) =>
  text === undefined ? '' : text.length > max ? text.slice(0, max) : text;

function prepare(finding: MatchableFinding, occurrence?: MatchableOccurrence): PreparedFinding {
  const title = finding.title.length > TITLE_CHARS ? finding.title.slice(0, TITLE_CHARS) : finding.title;
  const cpes: string[] = [];
  for (const cpe of finding.cpes ?? []) {
    const normalized = normalizeCpe(cpe);
    if (normalized !== null) cpes.push(normalized);
  }
  const severity = occurrence?.severity ?? finding.severity;
  return {
    scanner: finding.source.scanner.toLowerCase(),
    ruleId: finding.ruleId,
    ruleWithMatcher: finding.matcherName ? `${finding.ruleId}:${finding.matcherName}` : '',
    title,
    severity: isSeverity(severity) ? severity : null,
    family: (finding.pluginFamily ?? '').trim().toLowerCase(),
    cpes,
    tags: new Set((finding.tags ?? []).map((t) => t.toLowerCase())),
    cves: new Set((finding.cves ?? []).map((c) => c.toUpperCase())),
    checkType: (finding.checkType ?? '').toLowerCase(),
    compliance: (finding.occurrences?.[0]?.compliance?.result ?? '').toLowerCase(),
    observation: finding.checkType === 'open-port',
    namesCve: (finding.cves?.length ?? 0) > 0 || /^CVE-\d{4}-\d{4,}$/i.test(finding.ruleId),
    occurrence: occurrence
      ? {
          detail: capped(occurrence.detail, OCCURRENCE_CHARS),
          output: capped(occurrence.evidence?.output ?? occurrence.evidence?.extracted?.join('\n'), OCCURRENCE_CHARS),
        }
      : null,
  };
}

const patternTest = (value: string, text: (f: PreparedFinding) => string) => {
  const regex = compileTitlePattern(value);
  return (f: PreparedFinding) => regex.test(text(f));
};

const CONDITION_TESTS: Readonly<Record<RuleCondition['kind'], (value: string) => (f: PreparedFinding) => boolean>> = {
  rule: (value) => (f) => f.ruleId === value || f.ruleWithMatcher === value,
  severity: (value) => (f) => f.severity === value,
  detail: (value) => patternTest(value, (f) => f.occurrence?.detail ?? ''),
  output: (value) => patternTest(value, (f) => f.occurrence?.output ?? ''),
  family: (value) => (f) => f.family === value,
  cpe: (value) => (f) => f.cpes.some((cpe) => cpeCovers(value, cpe)),
  tag: (value) => (f) => f.tags.has(value),
  title: (value) => patternTest(value, (f) => f.title),
  cve: (value) => (value === 'any' ? (f) => f.namesCve : (f) => f.cves.has(value)),
  compliance: (value) => (f) => f.compliance === value,
  type: (value) => (f) => f.checkType === value,
};

const BROAD_WEIGHT: Readonly<Partial<Record<RuleCondition['kind'], number>>> = {
  rule: 400,
  cpe: 300,
  tag: 200,
  family: 100,
  type: 50,
};

function conditionCandidate(order: number, detail: string, conditions: RuleCondition[], fallback: boolean): Candidate {
  const tests = conditions.map((c) => CONDITION_TESTS[c.kind](c.value));
  const ruleTests = conditions
    .filter((c) => !OCCURRENCE_CONDITION_KINDS.includes(c.kind))
    .map((c) => CONDITION_TESTS[c.kind](c.value));
  const kinds = new Set(conditions.map((c) => c.kind));
  const only = conditions.length === 1 ? conditions[0]! : null;
  const anyCve = conditions.some((c) => c.kind === 'cve' && c.value === 'any');
  const specific =
    conditions.length > 1 || (kinds.has('cve') && !anyCve) || kinds.has('compliance') || kinds.has('rule');
  const titleWeight = conditions.reduce((sum, c) => sum + (c.kind === 'title' ? literalWeight(c.value) : 0), 0);
  const cpeWeight = conditions.reduce((sum, c) => sum + (c.kind === 'cpe' ? c.value.split(':').length * 10 : 0), 0);
  let level: number;
  let matchedOn: MatchedOn;
  let confidence: MatchConfidence;
  if (conditions.some((c) => OCCURRENCE_CONDITION_KINDS.includes(c.kind))) {
    level = LEVEL.variant;
    matchedOn = 'condition';
    confidence = kinds.has('rule') ? 'high' : 'medium';
  } else if (fallback) {
    level = LEVEL.fallback;
    matchedOn = only !== null ? matchedOnOf(only.kind) : 'condition';
    confidence = 'low';
  } else if (specific) {
    level = LEVEL.specificCondition;
    matchedOn = only?.kind === 'compliance' ? 'compliance' : only?.kind === 'cve' ? 'cve' : 'condition';
    confidence = 'high';
  } else if (only?.kind === 'title') {
    level = LEVEL.titlePattern;
    matchedOn = 'titlePattern';
    confidence = 'medium';
  } else {
    level = LEVEL.broadCondition;
    matchedOn = matchedOnOf((only as RuleCondition).kind);
    confidence = 'low';
  }
  return {
    order,
    level,
    // Why `cve=any` weighs nothing: it says a finding is some known vulnerability, the least a rule can say.
    specificity:
      (anyCve ? -1000 : 0) +
      conditions.length * 1000 +
      titleWeight +
      cpeWeight +
      conditions.reduce((sum, c) => sum + (BROAD_WEIGHT[c.kind] ?? 0), 0),
    matchedOn,
    confidence,
    detail,
    test: (f) => tests.every((t) => t(f)),
    ...(level === LEVEL.variant ? { ruleTest: (f: PreparedFinding) => ruleTests.every((t) => t(f)) } : {}),
  };
}

function matchedOnOf(kind: RuleCondition['kind']): MatchedOn {
  switch (kind) {
    case 'title':
      return 'titlePattern';
    case 'family':
    case 'cpe':
    case 'tag':
    case 'type':
    case 'cve':
    case 'compliance':
      return kind;
    default:
      return 'condition';
  }
}

/**
 * Why a template may not describe a finding, or null when it may. The precision rules of issue
 * 19: an observation (an open port) takes only an informational template; another informational
 * result takes an informational template, or a low one its exact rule id names; a match on CWE
 * alone needs severities at most one step apart.
 */
export function matchRefusal(
  finding: { severity?: string | null; checkType?: string | null },
  templateSeverity: string | null | undefined,
  matchedOn: MatchedOn,
): string | null {
  if (!isSeverity(templateSeverity) || !isSeverity(finding.severity)) return null;
  const scanner = severityRank(finding.severity);
  const template = severityRank(templateSeverity);
  if (finding.checkType === 'open-port' && templateSeverity !== 'info')
    return `an observation (open port) takes no ${templateSeverity} template`;
  if (finding.severity === 'info' && template > severityRank(matchedOn === 'rule' ? 'low' : 'info'))
    return `an informational result takes no ${templateSeverity} template${matchedOn === 'rule' ? '' : ' unless its rule id is named'}`;
  // Why: an informational template says so ("This is an informational finding"); a result the
  // scanner rates above info would read as a contradiction of its own severity.
  // (A compliance audit's warnings and errors are rated medium by Nessus and are, by design, checks to review.)
  if (templateSeverity === 'info' && scanner > 0 && matchedOn !== 'compliance')
    return `a ${finding.severity} result takes no informational template (its text says informational)`;
  if (matchedOn === 'cwe' && Math.abs(scanner - template) > 1)
    return `a CWE alone does not carry a ${finding.severity} result to a ${templateSeverity} template`;
  return null;
}

/**
 * The template for one scanner finding, or null. Precedence, the first level that has an
 * acceptable template wins:
 *
 * 1. the exact rule id: `<scanner>:<ruleId>:<matcherName>`, then `<scanner>:<ruleId>`;
 * 2. a rule with several conditions, or one naming a CVE or a compliance result;
 * 3. a template whose CVEs cover at least half of the finding's CVEs (most covered first), so a
 *    roll-up carrying one famous CVE among many does not take that CVE's template;
 * 4. a title pattern (or a `title=` rule);
 * 5. a plugin family, CPE, Nuclei tag or check type alone (CPE before tag before family);
 * 6. the title patterns and conditions of generic (`fallback`) templates;
 * 7. a CWE, when the severities are at most one step apart.
 *
 * Within levels 2, 4, 5 and 6 the more specific rule wins (more conditions, more literal text in
 * the pattern), then the template listed first. A template the precision rules refuse
 * (`matchRefusal`) is passed over.
 */
export function matchTemplates(finding: MatchableFinding, index: TemplateMatchIndex): TemplateMatch | null {
  const f = prepare(finding);
  const accept = acceptance(f, index);

  const exact = [`${f.scanner}:${finding.ruleId}`];
  if (finding.matcherName) exact.unshift(`${exact[0]}:${finding.matcherName}`);
  for (const rule of exact) {
    const order = index.byRule.get(rule);
    if (order !== undefined && accept(order, 'rule'))
      return { templateKey: index.keys[order]!, matchedOn: 'rule', detail: rule, confidence: 'high' };
  }

  const list = index.candidates.get(f.scanner) ?? [];
  // Why variants are passed over: they describe some occurrences of a rule (see matchScanFinding).
  let i = 0;
  while (i < list.length && list[i]!.level === LEVEL.variant) i++;
  const fromCandidates = (maxLevel: number): TemplateMatch | null => {
    for (; i < list.length && list[i]!.level <= maxLevel; i++) {
      const c = list[i]!;
      // Why: a tag says what class a scanner check belongs to (`lfi`, `rce`); a check for one CVE is
      // fixed by the vendor's fix, not by the class's generic remediation.
      if (c.matchedOn === 'tag' && f.namesCve) continue;
      if (c.test(f) && accept(c.order, c.matchedOn)) {
        i++;
        return candidateMatch(c, index);
      }
    }
    return null;
  };

  const specific = fromCandidates(LEVEL.specificCondition);
  if (specific) return specific;

  const cve = cveFamilyMatch(f, index, accept);
  if (cve) return cve;

  const other = fromCandidates(LEVEL.fallback);
  if (other) return other;

  for (const cwe of finding.cwes ?? []) {
    const order = index.byCwe.get(cwe);
    if (order !== undefined && accept(order, 'cwe'))
      return { templateKey: index.keys[order]!, matchedOn: 'cwe', detail: `CWE-${cwe}`, confidence: 'low' };
  }
  return null;
}

/** The precision rules for a prepared finding (or occurrence): whether a template may describe it. */
function acceptance(f: PreparedFinding, index: TemplateMatchIndex) {
  const subject = { severity: f.severity, checkType: f.observation ? 'open-port' : null };
  return (order: number, matchedOn: MatchedOn): boolean =>
    matchRefusal(subject, index.severities[order], matchedOn) === null;
}

function candidateMatch(c: Candidate, index: TemplateMatchIndex): TemplateMatch {
  return { templateKey: index.keys[c.order]!, matchedOn: c.matchedOn, detail: c.detail, confidence: c.confidence };
}

/** A finding, or the part of it whose occurrences took one template, with that template. */
export interface ScanFindingPart<F> {
  finding: F;
  match: TemplateMatch | null;
}

/** What `matchScanFinding` splits: a finding with its group key and occurrences. */
export type SplittableFinding = MatchableFinding & {
  groupKey: string;
  severity: string;
  severityRaw?: string;
  occurrences?: ReadonlyArray<MatchableOccurrence & { severity?: string }>;
};

/**
 * The template of each occurrence where a rule covers several things: occurrences that a variant
 * rule (one with `severity=`, `detail=` or `output=`) takes become a finding of their own per
 * template, with the group key `<group key>|<template>`, so one scanner rule can become several
 * findings (the informational "all is well" variant apart from the problem, distinct problems
 * apart from each other); the other occurrences stay the finding of the rule, under its group key,
 * and take the template `matchTemplates` gives it. A finding no variant can take is returned whole.
 */
export function matchScanFinding<F extends SplittableFinding>(
  finding: F,
  index: TemplateMatchIndex,
): Array<ScanFindingPart<F>> {
  const prepared = prepare(finding);
  const variants = (index.candidates.get(prepared.scanner) ?? []).filter(
    (c) => c.level === LEVEL.variant && c.ruleTest!(prepared),
  );
  if (variants.length === 0) return [{ finding, match: matchTemplates(finding, index) }];
  const byTemplate = new Map<number, { indices: number[]; match: TemplateMatch }>();
  const rest: number[] = [];
  const seen = new Map<string, Candidate | null>();
  (finding.occurrences ?? []).forEach((occurrence, i) => {
    const f = prepare(finding, occurrence);
    const signature = `${f.severity}\u0000${f.occurrence!.detail}\u0000${f.occurrence!.output}`;
    let variant = seen.get(signature);
    if (variant === undefined) {
      const accept = acceptance(f, index);
      variant = variants.find((c) => c.test(f) && accept(c.order, c.matchedOn)) ?? null;
      seen.set(signature, variant);
    }
    if (variant === null) rest.push(i);
    else {
      const group = byTemplate.get(variant.order) ?? { indices: [], match: candidateMatch(variant, index) };
      group.indices.push(i);
      byTemplate.set(variant.order, group);
    }
  });
  if (byTemplate.size === 0) return [{ finding, match: matchTemplates(finding, index) }];
  const parts: Array<ScanFindingPart<F> & { first: number }> = [];
  if (rest.length > 0) {
    const part = partOf(finding, rest, finding.groupKey);
    parts.push({ finding: part, match: matchTemplates(part, index), first: rest[0]! });
  }
  for (const [order, { indices, match }] of byTemplate)
    parts.push({
      finding: partOf(finding, indices, `${finding.groupKey}|${index.groupKeys[order]}`),
      match,
      first: indices[0]!,
    });
  return parts.sort((a, b) => a.first - b.first).map(({ finding: part, match }) => ({ finding: part, match }));
}

/** The finding of some of a finding's occurrences: rated by the worst of them. */
function partOf<F extends SplittableFinding>(finding: F, indices: readonly number[], groupKey: string): F {
  const occurrences = indices.map((i) => finding.occurrences![i]!);
  let severity: Severity = 'info';
  for (const o of occurrences) {
    const s = o.severity ?? finding.severity;
    if (isSeverity(s) && severityRank(s) > severityRank(severity)) severity = s;
  }
  const same = severity === finding.severity;
  return {
    ...finding,
    groupKey,
    occurrences,
    severity,
    ...(finding.severityRaw !== undefined ? { severityRaw: same ? finding.severityRaw : severity } : {}),
  };
}

/** The template covering most of the finding's CVEs, when it covers at least half of them. */
function cveFamilyMatch(
  f: PreparedFinding,
  index: TemplateMatchIndex,
  accept: (order: number, matchedOn: MatchedOn) => boolean,
): TemplateMatch | null {
  if (f.cves.size === 0) return null;
  const covered = new Map<number, string[]>();
  for (const cve of f.cves) {
    for (const order of index.byCve.get(cve) ?? []) {
      const list = covered.get(order) ?? [];
      list.push(cve);
      covered.set(order, list);
    }
  }
  const ranked = [...covered.entries()].sort((a, b) => b[1].length - a[1].length || a[0] - b[0]);
  for (const [order, cves] of ranked) {
    if (cves.length / f.cves.size < CVE_SHARE) break;
    if (!accept(order, 'cve')) continue;
    const all = cves.length === f.cves.size;
    return {
      templateKey: index.keys[order]!,
      matchedOn: 'cve',
      detail: f.cves.size === 1 ? cves[0]! : `${cves[0]} (${cves.length} of ${f.cves.size} CVEs)`,
      confidence: all ? 'high' : 'medium',
    };
  }
  return null;
}

/**
 * How much fixed text a pattern requires: literal characters outside optional parts,
 * alternatives counted by their shortest branch, lookarounds not at all. A longer fixed text
 * names the finding more precisely (`^Apache Tomcat .* < ` beats `^Apache .* < `).
 */
export function literalWeight(source: string): number {
  let i = 0;
  const quantifier = (): 'one' | 'optional' => {
    const c = source[i];
    let optional = false;
    if (c === '?' || c === '*') {
      optional = true;
      i++;
    } else if (c === '+') {
      i++;
    } else if (c === '{') {
      const m = /^\{(\d+)(,\d*)?\}/.exec(source.slice(i));
      if (!m) return 'one';
      optional = m[1] === '0';
      i += m[0].length;
    } else {
      return 'one';
    }
    if (source[i] === '?') i++;
    return optional ? 'optional' : 'one';
  };
  const atom = (): number => {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      i += 2;
      if (next === 'x') {
        i += 2;
        return 1;
      }
      if (next === 'u') {
        i += 4;
        return 1;
      }
      return /[A-Za-z0-9]/.test(next) ? 0 : 1;
    }
    if (c === '[') {
      i++;
      if (source[i] === '^') i++;
      if (source[i] === ']') i++;
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
      i++;
      return 0;
    }
    if (c === '(') {
      i++;
      let counts = true;
      if (source[i] === '?') {
        if (source[i + 1] === ':') i += 2;
        else if (source[i + 1] === '<' && source[i + 2] !== '=' && source[i + 2] !== '!') {
          while (i < source.length && source[i] !== '>') i++;
          i++;
        } else {
          counts = false;
          i += source[i + 1] === '<' ? 3 : 2;
        }
      }
      const weight = sequence();
      i++;
      return counts ? weight : 0;
    }
    i++;
    return c === '.' || c === '^' || c === '$' ? 0 : 1;
  };
  const sequence = (): number => {
    const branches: number[] = [];
    let current = 0;
    while (i < source.length && source[i] !== ')') {
      if (source[i] === '|') {
        branches.push(current);
        current = 0;
        i++;
        continue;
      }
      const weight = atom();
      current += quantifier() === 'optional' ? 0 : weight;
    }
    branches.push(current);
    return Math.min(...branches);
  };
  let total = 0;
  while (i < source.length) {
    total += sequence();
    i++;
  }
  return total;
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
      severity: t.content.severity,
      fallback: t.content.match.fallback,
      instanceScored: t.content.severity !== 'info' && t.content.cvss.length === 0,
    }));
}

/** The columns of a workspace `finding_templates` row that matching reads. */
export const FINDING_TEMPLATE_MATCH_COLUMNS = [
  'id',
  'global_key',
  'severity',
  'scanner_rules',
  'cves',
  'match_cves',
  'match_cwes',
  'title_patterns',
  'match_fallback',
] as const;

export interface FindingTemplateMatchRow {
  id: string;
  /** the library key of a global template: split-off group keys name it, so they are the same in every workspace */
  global_key?: string | null;
  /** optional for callers that select the older column list */
  severity?: string | null;
  scanner_rules: string[];
  cves: string[];
  match_cves: string[];
  match_cwes: number[];
  title_patterns: Partial<Record<ScanFormat, string[]>> | null;
  /** the template's `match.fallback`: generic, it loses to any more specific template */
  match_fallback?: boolean | null;
}

/** A workspace template row as matching input; `templateKey` of its matches is the row id. */
export function matchableTemplateOfRow(row: FindingTemplateMatchRow): MatchableTemplate {
  return {
    key: row.id,
    groupKey: row.global_key ?? row.id,
    rules: row.scanner_rules,
    cves: [...new Set([...(row.match_cves ?? []), ...(row.cves ?? [])])],
    cwes: row.match_cwes ?? [],
    titlePatterns: row.title_patterns ?? {},
    ...(row.severity ? { severity: row.severity } : {}),
    ...(row.match_fallback ? { fallback: true } : {}),
  };
}
