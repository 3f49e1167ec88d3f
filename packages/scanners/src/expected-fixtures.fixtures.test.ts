import { Compile } from 'typebox/compile';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  NormalizedFindingSchema,
  parseScan,
  type CompleteFinding,
  type CompleteOccurrence,
  type ParseResult,
  type ScanFormat,
} from './index.ts';
import { maxSeverity, SEVERITIES } from '@service/report-model';
import { loadExpected, readFixture, type ExpectedFile } from './testing/scan-fixtures.ts';

/**
 * Every fact EXPECTED.json states about every fixture, checked against what the parser returns.
 * Driven by the JSON: a new fixture entry is covered without touching this file, and a fact this
 * file has no checker for fails loudly instead of being skipped.
 */

const expected = loadExpected();
const validateFinding = Compile(NormalizedFindingSchema);

/** Facts about other importers' rules, not ours (SCANNERS.md explains the differences). */
const IGNORED_KEYS = new Set([
  'defectdojo_equivalent_findings',
  'defectdojo_equivalent_severity_findings',
  'defectdojo_note',
  'cross_check',
]);

interface Subject {
  file: string;
  format: ScanFormat;
  /** the parse result as EXPECTED.json counts it: without findings of NSE script output */
  result: ParseResult;
  /** everything the parser returned */
  full: ParseResult;
}

/**
 * EXPECTED.json rule M4 predates issue 19: NSE scripts that report a weakness (ftp-anon,
 * smb-protocols with SMBv1, ...) are findings of their own now. Its facts are about open ports
 * and vulners entries, so those findings are set aside for them and checked on their own below.
 */
function withoutScriptFindings(result: ParseResult): ParseResult {
  if (result.format !== 'nmap') return result;
  const scripts = result.findings.filter((f) => f.checkType === 'nse-script');
  if (scripts.length === 0) return result;
  const occurrences = scripts.reduce((n, f) => n + f.occurrences.length, 0);
  return {
    ...result,
    findings: result.findings.filter((f) => f.checkType !== 'nse-script'),
    stats: {
      ...result.stats,
      findings: result.stats.findings - scripts.length,
      occurrences: result.stats.occurrences - occurrences,
    },
  };
}

type Check = (subject: Subject, value: unknown) => void;

const allOccurrences = (result: ParseResult): CompleteOccurrence[] => result.findings.flatMap((f) => f.occurrences);
const isOpenPort = (finding: CompleteFinding): boolean => finding.checkType === 'open-port';

function tally<T>(
  items: readonly T[],
  keyOf: (item: T) => string | undefined,
  zeroKeys: readonly string[] = [],
): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(zeroKeys.map((key) => [key, 0]));
  for (const item of items) {
    const key = keyOf(item);
    if (key !== undefined) counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function distinct<T>(values: readonly (T | undefined)[]): T[] {
  return [...new Set(values.filter((v): v is T => v !== undefined))];
}

/** Host as EXPECTED counts it: the asset id, except Nuclei where it is the host name (rule U5). */
function hostOf(format: ScanFormat, occurrence: CompleteOccurrence): string | undefined {
  return format === 'nuclei' ? occurrence.asset.hostname : occurrence.asset.id;
}

type StatsOf<F extends ScanFormat> = Extract<ParseResult, { format: F }>['stats'];

function statsOf<F extends ScanFormat>(subject: Subject, format: F): StatsOf<F> {
  expect(subject.result.format).toBe(format);
  return subject.result.stats as unknown as StatsOf<F>;
}

const FILE_CHECKS: Record<string, Check> = {
  quirk: ({ result }, value) => expect(result.stats.quirk).toBe(value),
  findings: ({ result }, value) => {
    expect(result.findings).toHaveLength(value as number);
    expect(result.stats.findings).toBe(value);
  },
  occurrences: ({ result }, value) => {
    expect(allOccurrences(result)).toHaveLength(value as number);
    expect(result.stats.occurrences).toBe(value);
  },
  severity_occurrences: ({ result }, value) =>
    expect(tally(allOccurrences(result), (o) => o.severity, SEVERITIES)).toEqual(value),
  severity_findings: ({ result }, value) =>
    expect(tally(result.findings, (f) => f.severity, SEVERITIES)).toEqual(value),
  severity_findings_first_occurrence: ({ result }, value) =>
    expect(tally(result.findings, (f) => f.occurrences[0]?.severity, SEVERITIES)).toEqual(value),

  // Nessus
  report_hosts: (s, value) => expect(statsOf(s, 'nessus').reportHosts).toBe(value),
  hosts_with_findings: (s, value) => {
    expect(distinct(allOccurrences(s.result).map((o) => o.asset.id))).toHaveLength(value as number);
    expect(statsOf(s, 'nessus').hostsWithFindings).toBe(value);
  },
  report_items_total: (s, value) => expect(statsOf(s, 'nessus').reportItems).toBe(value),
  skipped_plugin_id_0: (s, value) => expect(statsOf(s, 'nessus').skippedPluginId0).toBe(value),
  risk_factor_occurrences: (s, value) => expect(statsOf(s, 'nessus').riskFactors).toEqual(value),
  compliance_results: (s, value) => {
    expect(tally(allOccurrences(s.result), (o) => o.compliance?.result)).toEqual(value);
    expect(statsOf(s, 'nessus').complianceResults).toEqual(value);
  },

  // Burp
  burp_version: ({ result }, value) => expect(result.scannerVersion).toBe(value),
  distinct_hosts: ({ result, format }, value) =>
    expect(distinct(allOccurrences(result).map((o) => hostOf(format, o)))).toHaveLength(value as number),
  distinct_host_ips: ({ result }, value) =>
    expect(distinct(allOccurrences(result).map((o) => o.asset.ip))).toHaveLength(value as number),
  confidence_occurrences: ({ result }, value) =>
    expect(tally(allOccurrences(result), (o) => o.confidence)).toEqual(value),
  requestresponse_pairs: (s, value) => expect(statsOf(s, 'burp').requestResponsePairs).toBe(value),
  base64_false_present: (s, value) => expect(statsOf(s, 'burp').base64FalsePresent).toBe(value),

  // Nmap
  hosts_total: (s, value) => expect(statsOf(s, 'nmap').hostsTotal).toBe(value),
  hosts_up: (s, value) => expect(statsOf(s, 'nmap').hostsUp).toBe(value),
  hosts_with_open_ports: (s, value) => {
    const openPorts = s.result.findings.filter(isOpenPort).flatMap((f) => f.occurrences);
    expect(distinct(openPorts.map((o) => o.asset.id))).toHaveLength(value as number);
    expect(statsOf(s, 'nmap').hostsWithOpenPorts).toBe(value);
  },
  open_port_occurrences: (s, value) => {
    expect(s.result.findings.filter(isOpenPort).flatMap((f) => f.occurrences)).toHaveLength(value as number);
    expect(statsOf(s, 'nmap').openPortOccurrences).toBe(value);
  },
  open_port_findings: ({ result }, value) => expect(result.findings.filter(isOpenPort)).toHaveLength(value as number),
  vulners_occurrences: (s, value) => {
    expect(s.result.findings.filter((f) => !isOpenPort(f)).flatMap((f) => f.occurrences)).toHaveLength(value as number);
    expect(statsOf(s, 'nmap').scriptOccurrences).toBe(
      s.full.findings.filter((f) => f.checkType === 'nse-script').flatMap((f) => f.occurrences).length,
    );
    expect(statsOf(s, 'nmap').vulnersOccurrences).toBe(value);
  },
  vulners_findings: ({ result }, value) =>
    expect(result.findings.filter((f) => !isOpenPort(f))).toHaveLength(value as number),
  port_states: (s, value) => expect(statsOf(s, 'nmap').portStates).toEqual(value),
  nse_scripts: (s, value) => expect(statsOf(s, 'nmap').nseScripts).toEqual(value),

  // Nuclei
  input_shape: (s, value) => expect(statsOf(s, 'nuclei').inputShape).toBe(value),
  records: (s, value) => expect(statsOf(s, 'nuclei').records).toBe(value),
  records_without_asset: (s, value) => expect(statsOf(s, 'nuclei').recordsWithoutAsset).toBe(value),

  spot_checks: (subject, value) => {
    for (const spot of value as Record<string, unknown>[]) checkSpot(subject, spot);
  },
  extra_checks: (subject, value) => {
    for (const extra of value as Record<string, unknown>[]) checkExtra(subject, extra);
  },
};

/**
 * EXPECTED lists distinct values in first-seen order, cut after 12 entries with a trailing "..."
 * and the full number in `<name>_count`.
 */
function expectDistinctValues(actual: string[], expectedValues: unknown, count: unknown, label: string): void {
  const values = expectedValues as string[];
  if (values.at(-1) === '...') {
    expect(actual.slice(0, values.length - 1), label).toEqual(values.slice(0, -1));
    expect(actual, label).toHaveLength(count as number);
  } else {
    expect(actual, label).toEqual(values);
    if (count !== undefined) expect(actual, label).toHaveLength(count as number);
  }
}

/** CWE ids appear as 20, "20" or "CWE-20" in EXPECTED; the model stores integers. */
const cweNumber = (value: unknown): number => Number(String(value).replace(/^CWE-/i, ''));

const SPOT_KEYS_HANDLED_WITH_LISTS = new Set(['hosts_count', 'ports_count', 'paths_count', 'matched_at_count']);

function checkSpot({ format, result }: Subject, spot: Record<string, unknown>): void {
  const finding = result.findings.find((f) => f.groupKey === spot.key);
  expect(finding, `finding with key ${String(spot.key)}`).toBeDefined();
  const f = finding as CompleteFinding;
  const label = `finding ${f.groupKey}`;
  const firstOccurrence = f.occurrences[0];
  for (const [key, value] of Object.entries(spot)) {
    switch (key) {
      case 'key':
        break;
      case 'title':
        expect(f.title, label).toBe(value);
        break;
      case 'severity':
        expect(f.severity, label).toBe(value);
        break;
      case 'occurrences':
        expect(f.occurrences, label).toHaveLength(value as number);
        break;
      case 'hosts':
        expectDistinctValues(
          distinct(f.occurrences.map((o) => hostOf(format, o))),
          value,
          spot.hosts_count,
          `${label} hosts`,
        );
        break;
      case 'ports':
        // Why `?? 0`: the model leaves the port out for host-level results; EXPECTED writes them as port 0.
        expectDistinctValues(
          distinct(f.occurrences.map((o) => `${o.port ?? 0}/${o.protocol ?? ''}`)),
          value,
          spot.ports_count,
          `${label} ports`,
        );
        break;
      case 'paths':
        expectDistinctValues(distinct(f.occurrences.map((o) => o.path)), value, spot.paths_count, `${label} paths`);
        break;
      case 'matched_at':
        expectDistinctValues(
          distinct(f.occurrences.map((o) => o.url)),
          value,
          spot.matched_at_count,
          `${label} matched_at`,
        );
        break;
      case 'cves':
        expect(f.cves, label).toEqual(value);
        break;
      case 'cwes':
        expect(f.cwes, label).toEqual((value as unknown[]).map(cweNumber));
        break;
      case 'plugin_id':
      case 'template_id':
        expect(f.ruleId, label).toBe(value);
        break;
      case 'type':
        expect(format === 'burp' ? f.ruleId : f.checkType, label).toBe(value);
        break;
      case 'confidence':
        expect(f.confidence, label).toBe(value);
        expect(firstOccurrence?.confidence, label).toBe(value);
        break;
      case 'cvss3_vector':
        expect(f.cvss.find((c) => c.version.startsWith('3'))?.vector, label).toBe(value);
        break;
      case 'cvss3_base_score':
        expect(f.cvss.find((c) => c.version.startsWith('3'))?.baseScore, label).toBe(Number(value));
        break;
      case 'cvss_metrics':
        expect(f.cvss[0]?.vector, label).toBe(value);
        break;
      case 'compliance_result':
        expect(firstOccurrence?.compliance?.result, label).toBe(value);
        break;
      default:
        if (!SPOT_KEYS_HANDLED_WITH_LISTS.has(key))
          throw new Error(`No checker for spot check field "${key}"; add one to expected-fixtures.test.ts`);
    }
  }
}

function checkExtra({ result }: Subject, extra: Record<string, unknown>): void {
  const finding = result.findings.find((f) => f.ruleId === extra.plugin_id);
  expect(finding, `finding for plugin ${String(extra.plugin_id)}`).toBeDefined();
  const f = finding as CompleteFinding;
  for (const [key, value] of Object.entries(extra)) {
    switch (key) {
      case 'plugin_id':
      case 'note':
        break;
      case 'title':
        expect(f.title).toBe(value);
        break;
      case 'severity_attribute':
        expect(f.severityRaw).toBe(value);
        break;
      case 'expected_severity':
        expect(f.severity).toBe(value);
        break;
      case 'cvss3_base_score':
        expect(f.cvss.find((c) => c.version.startsWith('3'))?.baseScore).toBe(Number(value));
        break;
      default:
        throw new Error(`No checker for extra check field "${key}"; add one to expected-fixtures.test.ts`);
    }
  }
}

describe.each(Object.entries(expected.files))('%s', (file: string, facts: ExpectedFile) => {
  const format = file.split('/')[0] as ScanFormat;
  const subject = { file, format } as Subject;

  beforeAll(() => {
    subject.full = parseScan(readFixture(file), { format });
    subject.result = withoutScriptFindings(subject.full);
  });

  it.each(Object.keys(facts).filter((key) => !IGNORED_KEYS.has(key)))('reproduces %s', (key) => {
    const check = FILE_CHECKS[key];
    if (check === undefined)
      throw new Error(`No checker for EXPECTED.json key "${key}"; add one to expected-fixtures.test.ts`);
    check(subject, facts[key]);
  });

  it('detects the format from the content when none is given', () => {
    const bytes = readFixture(file);
    if (bytes.every((b) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09)) {
      // Why: an empty file carries no format signal; the caller must name the format.
      expect(() => parseScan(bytes)).toThrow(/empty/);
    } else {
      expect(parseScan(bytes).format).toBe(format);
    }
  });

  it('returns findings that satisfy NormalizedFindingSchema and the merge invariants', () => {
    for (const finding of subject.full.findings) {
      expect(validateFinding.Errors(finding), finding.groupKey).toEqual([]);
      expect(finding.source.scanner).toBe(format);
      expect(finding.occurrences.length).toBeGreaterThan(0);
      expect(finding.severity).toBe(finding.occurrences.map((o) => o.severity).reduce(maxSeverity));
      expect(new Set(finding.cves).size).toBe(finding.cves.length);
      expect(new Set(finding.cwes).size).toBe(finding.cwes.length);
    }
    expect(new Set(subject.full.findings.map((f) => f.groupKey)).size).toBe(subject.full.findings.length);
  });
});
