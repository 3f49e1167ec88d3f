import { dedentText } from './dedent-text.ts';
import { LIMITS } from './limits.ts';
import type { FindingSeed } from './merge-occurrences.ts';
import type { Cvss, CvssVersion } from '@service/report-model';
import type { Asset, CompleteOccurrence, Compliance } from './normalized-finding.ts';
import { normalizeCve, parseCweId } from './normalize-identifiers.ts';
import { cvssVersionOfVector, normalizeCvssVector, parseCvssScore } from '@service/report-model';
import type { NessusParseResult, NessusStats } from './parse-result.ts';
import { referencesInText } from './reference-text.ts';
import { retainText, TextInterner } from './retain-text.ts';
import { SEVERITIES, type Severity } from '@service/report-model';
import { XmlScanParser } from './xml-scan-parser.ts';

const CM_NAMESPACE = 'http://www.nessus.org/cm';
/** `checkType` of a grouped compliance audit finding. */
export const COMPLIANCE_CHECK_TYPE = 'compliance';
/** Nessus Scan Information: its output states the scanner version. */
const SCAN_INFORMATION_PLUGIN = '19506';

/**
 * ReportItem children we read. `finding` fields only matter for the first occurrence of a plugin,
 * so their text is not even collected for later ones; `list` fields repeat.
 */
const ITEM_FIELDS: ReadonlyMap<string, { finding: boolean; list: boolean }> = new Map(
  Object.entries({
    description: { finding: true, list: false },
    synopsis: { finding: true, list: false },
    solution: { finding: true, list: false },
    plugin_name: { finding: true, list: false },
    see_also: { finding: true, list: true },
    cvss_base_score: { finding: true, list: false },
    cvss_vector: { finding: true, list: false },
    cvss_temporal_score: { finding: true, list: false },
    cvss_temporal_vector: { finding: true, list: false },
    cvss3_base_score: { finding: true, list: false },
    cvss3_vector: { finding: true, list: false },
    cvss3_temporal_score: { finding: true, list: false },
    cvss3_temporal_vector: { finding: true, list: false },
    cvss4_base_score: { finding: true, list: false },
    cvss4_vector: { finding: true, list: false },
    cvss4_base_vector: { finding: true, list: false },
    cvss: { finding: true, list: false }, // Tenable WAS: v2 score only
    cvssv3: { finding: true, list: false }, // Tenable WAS: v3 score only
    epss_score: { finding: true, list: false },
    xref: { finding: true, list: true },
    cpe: { finding: true, list: true },
    // Why always: CVE/CWE lists are a union over the merged occurrences (EXPECTED rule N7).
    cve: { finding: false, list: true },
    cwe: { finding: false, list: true },
    plugin_output: { finding: false, list: false },
    risk_factor: { finding: false, list: false },
  }),
);

/** HostProperties tags that describe the asset. */
const HOST_TAGS = new Set([
  'host-ip',
  'host-fqdn',
  'host-rdns',
  'netbios-name',
  'mac-address',
  'operating-system',
  'HOST_START_TIMESTAMP',
  'HOST_START',
]);

interface ItemState {
  pluginId: string;
  pluginName: string;
  pluginFamily: string;
  port: number;
  protocol: string;
  service: string;
  severity: Severity;
  severityRaw: string;
  needFindingText: boolean;
  fields: Map<string, string>;
  lists: Map<string, string[]>;
  /** local name (check-name, result, ...) → text; null for ordinary items */
  compliance: Map<string, string> | null;
}

/**
 * Nessus v2 (`NessusClientData_v2`) → normalized findings, streaming. Rules N1–N7 of EXPECTED.json
 * and SCANNERS.md section 2: severity from @severity, pluginID 0 skipped, one occurrence per
 * ReportItem, grouped by pluginID (compliance checks: pluginID + check name).
 */
export class NessusParser extends XmlScanParser {
  private readonly stats: NessusStats = {
    occurrences: 0,
    findings: 0,
    quirk: null,
    reportHosts: 0,
    hostsWithFindings: 0,
    reportItems: 0,
    skippedPluginId0: 0,
    riskFactors: {},
    complianceResults: {},
  };
  private readonly namespaces = new Map<string, string>();
  /** plugin ids whose items are compliance checks: their finding text is needed for every check */
  private readonly compliancePlugins = new Set<string>();
  private readonly interner = new TextInterner();

  private policyDepth = 0;
  private hostName: string | null = null;
  private hostTags = new Map<string, string>();
  private hostItems = 0;
  private asset: Asset | null = null;
  private firstSeen: string | undefined;
  private inHostProperties = false;
  private tagName: string | null = null;
  private item: ItemState | null = null;
  private itemDepth = 0;
  private field: string | null = null;

  constructor() {
    super('nessus');
  }

  end(): NessusParseResult {
    const outcome = this.finish(this.stats);
    for (const finding of outcome.findings)
      if (finding.checkType === COMPLIANCE_CHECK_TYPE) finding.description = describeAudit(finding.occurrences);
    return { format: 'nessus', ...outcome, stats: this.stats };
  }

  override openElement(name: string, attributes: Record<string, string>, depth: number): boolean {
    if (this.policyDepth !== 0) return false;
    if (this.item !== null) return depth === this.itemDepth + 1 && this.openItemChild(name);
    switch (name) {
      case 'ReportItem':
        if (this.hostName !== null) this.startItem(attributes, depth);
        return false;
      case 'tag':
        if (this.inHostProperties && attributes.name !== undefined && HOST_TAGS.has(attributes.name)) {
          this.tagName = attributes.name;
          return true;
        }
        return false;
      case 'HostProperties':
        this.inHostProperties = this.hostName !== null;
        return false;
      case 'ReportHost':
        this.startHost(attributes.name ?? '');
        return false;
      case 'Policy':
        this.policyDepth = depth;
        return false;
      default:
        if (depth <= 3) this.recordNamespaces(attributes);
        return false;
    }
  }

  override closeElement(name: string, text: string, depth: number): void {
    if (this.policyDepth !== 0) {
      if (depth === this.policyDepth) this.policyDepth = 0;
      return;
    }
    if (this.item !== null) {
      if (depth === this.itemDepth) this.finishItem(this.item);
      else if (this.field !== null) this.storeItemField(this.item, this.field, text);
      this.field = null;
      return;
    }
    if (this.tagName !== null) {
      this.hostTags.set(this.tagName, text.trim());
      this.tagName = null;
    } else if (name === 'HostProperties') {
      this.inHostProperties = false;
      this.asset = this.buildAsset();
    } else if (name === 'ReportHost' && this.hostName !== null) {
      if (this.hostItems > 0) this.stats.hostsWithFindings++;
      this.hostName = null;
    }
  }

  private recordNamespaces(attributes: Record<string, string>): void {
    for (const [key, value] of Object.entries(attributes)) {
      if (key.startsWith('xmlns:')) this.namespaces.set(key.slice(6), value);
    }
  }

  private startHost(name: string): void {
    this.stats.reportHosts++;
    this.hostName = name;
    this.hostTags = new Map();
    this.hostItems = 0;
    this.asset = null;
    this.firstSeen = undefined;
  }

  private buildAsset(): Asset {
    const tags = this.hostTags;
    const asset: Asset = { id: retainText(this.hostName ?? '', LIMITS.assetIdChars) };
    const ip = tags.get('host-ip');
    if (ip) asset.ip = retainText(ip, 64);
    const fqdn = tags.get('host-fqdn');
    if (fqdn) asset.fqdn = retainText(fqdn, 255);
    const hostname = tags.get('netbios-name') || tags.get('host-rdns');
    if (hostname) asset.hostname = retainText(hostname, 255);
    const mac = tags.get('mac-address');
    // Why first line: Nessus lists every interface's MAC address, one per line.
    if (mac) asset.mac = retainText(mac.split(/\s+/)[0] ?? '', 64);
    const os = tags.get('operating-system');
    if (os) asset.os = retainText(os.split('\n', 1)[0] ?? '', 500);
    this.firstSeen = hostStartTime(tags);
    return asset;
  }

  private startItem(attributes: Record<string, string>, depth: number): void {
    this.stats.reportItems++;
    const pluginId = (attributes.pluginID ?? '').trim();
    if (pluginId === '0') {
      // Nessus 4 open-port placeholder with an empty name (EXPECTED rule N2).
      this.stats.skippedPluginId0++;
      this.item = skippedItem;
      this.itemDepth = depth;
      return;
    }
    const severityRaw = attributes.severity ?? '';
    let severity = SEVERITIES[Number(severityRaw)] as Severity | undefined;
    if (severity === undefined || !/^[0-4]$/.test(severityRaw.trim())) {
      this.warnings.add(
        `ReportItem for plugin ${pluginId || '(none)'} on ${this.hostName} has severity ` +
          `"${severityRaw}"; treated as info.`,
      );
      severity = 'info';
    }
    this.item = {
      pluginId,
      pluginName: attributes.pluginName ?? '',
      pluginFamily: attributes.pluginFamily ?? '',
      port: Number.parseInt(attributes.port ?? '0', 10) || 0,
      protocol: (attributes.protocol ?? '').trim().toLowerCase(),
      service: attributes.svc_name ?? '',
      severity,
      severityRaw: severityRaw.trim(),
      needFindingText: !this.merger.has(pluginId) || this.compliancePlugins.has(pluginId),
      fields: new Map(),
      lists: new Map(),
      compliance: null,
    };
    this.itemDepth = depth;
  }

  private openItemChild(name: string): boolean {
    const item = this.item as ItemState;
    if (item === skippedItem) return false;
    const spec = ITEM_FIELDS.get(name);
    if (spec !== undefined) {
      if (spec.finding && !item.needFindingText) return false;
      this.field = name;
      return true;
    }
    const colon = name.indexOf(':');
    if (colon > 0 && name.startsWith('compliance-', colon + 1)) {
      const prefix = name.slice(0, colon);
      const uri = this.namespaces.get(prefix);
      // Why accept an undeclared `cm`: saxes runs without namespace checks, and some exports omit the declaration.
      if (uri === CM_NAMESPACE || (uri === undefined && prefix === 'cm')) {
        this.field = name;
        return true;
      }
    }
    return false;
  }

  private storeItemField(item: ItemState, field: string, text: string): void {
    const colon = field.indexOf(':');
    if (colon > 0) {
      item.compliance ??= new Map();
      item.compliance.set(field.slice(colon + 12), text.trim()); // after `prefix:compliance-`
      return;
    }
    if (ITEM_FIELDS.get(field)?.list) {
      const list = item.lists.get(field);
      if (list === undefined) item.lists.set(field, [text]);
      else list.push(text);
    } else {
      item.fields.set(field, text);
    }
  }

  private finishItem(item: ItemState): void {
    this.item = null;
    if (item === skippedItem) return;
    const checkName = item.compliance?.get('check-name');
    const complianceResult = checkName ? (item.compliance?.get('result') ?? '').trim().toUpperCase() : null;
    if (complianceResult !== null) {
      this.compliancePlugins.add(item.pluginId);
      this.stats.complianceResults[complianceResult] = (this.stats.complianceResults[complianceResult] ?? 0) + 1;
      // Why: a passed check is no finding; the stats still count it.
      if (complianceResult === 'PASSED') return;
    }
    this.hostItems++;
    this.asset ??= this.buildAsset();

    const riskFactor = item.fields.get('risk_factor')?.trim();
    if (riskFactor) this.stats.riskFactors[riskFactor] = (this.stats.riskFactors[riskFactor] ?? 0) + 1;
    // Why: Nessus 2 and 3 rated notes 1 ("Security Note") and old exports keep that scale, with
    // the risk factor saying what the plugin means: None, an informational result, never a low one.
    if (item.severity === 'low' && riskFactor?.toLowerCase() === 'none') item.severity = 'info';

    const output = item.fields.get('plugin_output');
    if (item.pluginId === SCAN_INFORMATION_PLUGIN && output !== undefined && this.scannerVersion === undefined) {
      const version = /Nessus version\s*:\s*(\S+)/.exec(output);
      if (version?.[1] !== undefined) this.scannerVersion = retainText(version[1], 100);
    }

    const occurrence: CompleteOccurrence = { asset: this.asset, severity: item.severity };
    if (item.port > 0) occurrence.port = item.port;
    if (item.protocol !== '') occurrence.protocol = this.interner.intern(item.protocol, 20);
    const service = serviceName(item.service);
    if (service !== '') occurrence.service = this.interner.intern(service);
    if (output !== undefined && output.trim() !== '')
      occurrence.evidence = { output: retainText(output, LIMITS.evidenceChars) };
    if (this.firstSeen !== undefined) occurrence.firstSeen = this.firstSeen;

    let groupKey = item.pluginId;
    let audit: string | undefined;
    if (item.compliance !== null && complianceResult !== null) {
      // One finding per audit and result (issue 19): the checks are its occurrences.
      audit = auditOf(item);
      groupKey = `${item.pluginId}|${audit}|${complianceResult}`;
      occurrence.compliance = complianceOf(item.compliance, complianceResult);
    }

    const lists = item.lists;
    const cves: string[] = [];
    for (const raw of lists.get('cve') ?? []) {
      const cve = normalizeCve(raw);
      if (cve !== null) cves.push(cve);
    }
    const cwes: number[] = [];
    for (const raw of lists.get('cwe') ?? []) {
      const cwe = parseCweId(raw);
      if (cwe !== null) cwes.push(cwe);
    }
    // Why xref `CWE:nn` stays a reference only: EXPECTED.json (Tenable WAS plugin 98104, cwes [])
    // takes CWEs from <cwe> children alone, although SCANNERS.md 2.2 suggests reading xrefs too.
    const references = item.needFindingText ? referencesOf(item) : undefined;

    this.merger.add(
      groupKey,
      occurrence,
      item.severityRaw,
      () =>
        audit !== undefined && complianceResult !== null
          ? this.seedAuditFinding(item, audit, complianceResult)
          : this.seedFinding(item),
      {
        cves,
        cwes,
        references: audit === undefined ? references : undefined,
      },
    );
  }

  /** A compliance audit's finding for one result: the checks and their values are on the occurrences. */
  private seedAuditFinding(item: ItemState, audit: string, result: string): FindingSeed {
    const seed: FindingSeed = {
      source: { scanner: 'nessus' },
      ruleId: retainText(item.pluginId || '(none)', LIMITS.keyChars),
      title: retainText(
        `${auditLabel(audit)}: ${RESULT_TITLES[result] ?? `checks with result ${result}`}`,
        LIMITS.titleChars,
      ),
      severity: item.severity,
      severityRaw: item.severityRaw,
      confidence: null,
      description: '',
      impact: null,
      remediation: null,
      cvss: [],
      checkType: COMPLIANCE_CHECK_TYPE,
    };
    if (item.pluginFamily !== '') seed.pluginFamily = retainText(item.pluginFamily, 200);
    return seed;
  }

  private seedFinding(item: ItemState): FindingSeed {
    const fields = item.fields;
    const title = item.pluginName.trim() || fields.get('plugin_name')?.trim() || `Nessus plugin ${item.pluginId}`;
    const description = dedentText(fields.get('description') || '');
    const solution = dedentText(fields.get('solution') || '');
    const seed: FindingSeed = {
      source: { scanner: 'nessus' },
      ruleId: retainText(item.pluginId || '(none)', LIMITS.keyChars),
      title: retainText(title, LIMITS.titleChars),
      severity: item.severity,
      severityRaw: item.severityRaw,
      confidence: null,
      description: retainText(description, LIMITS.textChars),
      impact: null,
      // Why null for n/a: informational plugins say "n/a", which is no remediation at all.
      remediation: solution === '' || /^n\/a$/i.test(solution) ? null : retainText(solution, LIMITS.textChars),
      cvss: cvssOf(fields),
    };
    const synopsis = dedentText(fields.get('synopsis') ?? '');
    if (synopsis) seed.summary = retainText(synopsis, LIMITS.textChars);
    if (item.pluginFamily !== '') seed.pluginFamily = retainText(item.pluginFamily, 200);
    const cpes = cpesOf(item.lists.get('cpe'));
    if (cpes.length > 0) seed.cpes = cpes;
    const epss = Number(fields.get('epss_score'));
    if (fields.has('epss_score') && Number.isFinite(epss) && epss >= 0 && epss <= 1) seed.epssScore = epss;
    return seed;
  }
}

/** Marks a pluginID 0 item whose children are ignored. */
const skippedItem: ItemState = {
  pluginId: '0',
  pluginName: '',
  pluginFamily: '',
  port: 0,
  protocol: '',
  service: '',
  severity: 'info',
  severityRaw: '0',
  needFindingText: false,
  fields: new Map(),
  lists: new Map(),
  compliance: null,
};

function serviceName(svcName: string): string {
  // `www` is Nessus' name for HTTP; a trailing `?` means Nessus is not sure of the service.
  let name = svcName.trim().replace(/\?$/, '');
  if (name === 'www') name = 'http';
  return name === 'general' ? '' : name;
}

/** see_also URLs (one a line, or within prose), then xref values such as `IAVA:2024-A-1`. */
function referencesOf(item: ItemState): string[] {
  const references: string[] = [];
  for (const seeAlso of item.lists.get('see_also') ?? [])
    for (const reference of referencesInText(seeAlso)) references.push(retainText(reference, LIMITS.referenceChars));
  for (const xref of item.lists.get('xref') ?? []) {
    const value = xref.trim();
    if (value !== '') references.push(retainText(value, LIMITS.referenceChars));
  }
  return references;
}

/** The `cpe` children (one or several per line), de-duplicated, in order. */
function cpesOf(values: readonly string[] | undefined): string[] {
  const cpes: string[] = [];
  for (const value of values ?? [])
    for (const cpe of value.split(/\s+/))
      if (cpe !== '' && !cpes.includes(cpe) && cpes.length < LIMITS.cpes) cpes.push(retainText(cpe, 300));
  return cpes;
}

function cvssOf(fields: Map<string, string>): Cvss[] {
  const entries: Cvss[] = [];
  const add = (
    defaultVersion: CvssVersion,
    vectorText: string | undefined,
    scoreText: string | undefined,
    temporal?: [string | undefined, string | undefined],
  ) => {
    const rawVector = vectorText?.trim() || null;
    const baseScore = parseCvssScore(scoreText);
    if (rawVector === null && baseScore === null) return;
    const version = (rawVector !== null ? cvssVersionOfVector(rawVector) : null) ?? defaultVersion;
    const entry: Cvss = {
      version,
      vector: rawVector === null ? null : retainText(normalizeCvssVector(rawVector, version), 300),
      baseScore,
    };
    const temporalScore = parseCvssScore(temporal?.[0]);
    if (temporalScore !== null) entry.temporalScore = temporalScore;
    const temporalVector = temporal?.[1]?.trim();
    if (temporalVector) entry.temporalVector = retainText(temporalVector.replace(/^CVSS2#/, ''), 300);
    entries.push(entry);
  };
  add('2.0', fields.get('cvss_vector'), fields.get('cvss_base_score') ?? fields.get('cvss'), [
    fields.get('cvss_temporal_score'),
    fields.get('cvss_temporal_vector'),
  ]);
  add('3.0', fields.get('cvss3_vector'), fields.get('cvss3_base_score') ?? fields.get('cvssv3'), [
    fields.get('cvss3_temporal_score'),
    fields.get('cvss3_temporal_vector'),
  ]);
  add('4.0', fields.get('cvss4_vector') ?? fields.get('cvss4_base_vector'), fields.get('cvss4_base_score'));
  return entries;
}

function complianceOf(values: Map<string, string>, result: string): Compliance {
  const compliance: Compliance = { result: retainText(result, 50) };
  const text = (key: string, max: number): string | undefined => {
    const value = dedentText(values.get(key) ?? '');
    return value === '' ? undefined : retainText(value, max);
  };
  const checkId = text('check-id', 500);
  if (checkId) compliance.checkId = checkId;
  const checkName = text('check-name', LIMITS.titleChars);
  if (checkName) compliance.checkName = checkName;
  const policy = values.get('policy-value');
  if (policy) compliance.policyValue = retainText(policy, LIMITS.evidenceChars);
  const actual = values.get('actual-value');
  if (actual) compliance.actualValue = retainText(actual, LIMITS.evidenceChars);
  const info = text('info', LIMITS.textChars);
  if (info) compliance.info = info;
  const solution = text('solution', LIMITS.textChars);
  if (solution) compliance.solution = solution;
  const reference = text('reference', LIMITS.textChars);
  if (reference) compliance.reference = reference;
  const seeAlso = referencesInText(values.get('see-also') ?? '');
  if (seeAlso.length > 0) compliance.seeAlso = seeAlso.slice(0, 100).map((r) => retainText(r, LIMITS.referenceChars));
  const auditFile = text('audit-file', 500);
  if (auditFile) compliance.auditFile = auditFile;
  return compliance;
}

/** The audit a compliance check belongs to: its audit file, else the plugin (Windows Compliance Checks, ...). */
function auditOf(item: ItemState): string {
  return (item.compliance?.get('audit-file') ?? '').trim() || item.pluginName.trim() || `plugin ${item.pluginId}`;
}

/** `CIS_Microsoft_Azure_Foundations_L1_v1.1.0.audit` → `CIS Microsoft Azure Foundations L1 v1.1.0`. */
function auditLabel(audit: string): string {
  return (
    audit
      .replace(/\.audit$/i, '')
      .replace(/_/g, ' ')
      .trim() || audit
  );
}

const RESULT_TITLES: Readonly<Record<string, string>> = {
  FAILED: 'failed checks',
  WARNING: 'checks to review (warning)',
  ERROR: 'checks that could not be evaluated (error)',
};

/** The description of a grouped audit finding: which audit, how many checks on how many hosts. */
function describeAudit(occurrences: readonly CompleteOccurrence[]): string {
  const first = occurrences[0]?.compliance;
  const checks = new Set(occurrences.map((o) => o.compliance?.checkId ?? o.compliance?.checkName ?? ''));
  const hosts = new Set(occurrences.map((o) => o.asset.id));
  const result = first?.result ?? '';
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return (
    `The compliance audit ${first?.auditFile ?? ''} reported ${plural(checks.size, 'check')} with the result ` +
    `${result} on ${plural(hosts.size, 'host')}. Each check is listed with the value the policy expects, ` +
    `the value found, its solution and the hosts it applies to.`
  ).replace('audit  reported', 'audit reported');
}

/**
 * HOST_START_TIMESTAMP (epoch seconds), else an ISO HOST_START (Tenable WAS); locale dates are ambiguous and skipped.
 */
function hostStartTime(tags: Map<string, string>): string | undefined {
  const epoch = Number(tags.get('HOST_START_TIMESTAMP'));
  if (Number.isFinite(epoch) && epoch > 0) return new Date(epoch * 1000).toISOString();
  const start = tags.get('HOST_START');
  if (start && /^\d{4}-\d{2}-\d{2}T/.test(start)) {
    const date = new Date(start);
    if (!Number.isNaN(date.getTime())) return date.toISOString();
  }
  return undefined;
}
