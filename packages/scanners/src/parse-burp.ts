import { decodeBurpMessage } from './decode-burp-message.ts';
import { extractLinks, htmlToText } from './html-to-text.ts';
import { LIMITS } from './limits.ts';
import type { FindingSeed } from './merge-occurrences.ts';
import type {
  Asset,
  CompleteOccurrence,
  Confidence,
  Evidence,
  HttpExchange,
  Interaction,
} from './normalized-finding.ts';
import type { BurpParseResult, BurpStats } from './parse-result.ts';
import { retainText } from './retain-text.ts';
import type { Severity } from '@service/report-model';
import { XmlScanParser } from './xml-scan-parser.ts';

/** Burp's shared type for issues raised by extensions; their key needs the name too (rule B3). */
const EXTENSION_ISSUE_TYPE = '134217728';

const SEVERITY: Readonly<Record<string, Severity>> = {
  high: 'high',
  medium: 'medium',
  low: 'low',
  information: 'info',
  info: 'info',
};
const CONFIDENCE: Readonly<Record<string, Confidence>> = { certain: 'Certain', firm: 'Firm', tentative: 'Tentative' };

/** Direct children of <issue> read as text. Backgrounds only matter for a finding's first occurrence. */
const ISSUE_FIELDS = new Set([
  'serialNumber',
  'type',
  'name',
  'host',
  'path',
  'location',
  'severity',
  'confidence',
  'issueBackground',
  'remediationBackground',
  'references',
  'vulnerabilityClassifications',
  'issueDetail',
  'remediationDetail',
]);
const BACKGROUND_FIELDS = new Set(['issueBackground', 'remediationBackground']);
const COLLABORATOR_FIELDS: ReadonlyMap<string, keyof Interaction> = new Map([
  ['interactionType', 'type'],
  ['originIp', 'originIp'],
  ['time', 'time'],
  ['lookupType', 'lookupType'],
  ['lookupHost', 'lookupHost'],
]);

interface IssueState {
  fields: Map<string, string>;
  hostIp: string;
  detailItems: string[];
  exchanges: HttpExchange[];
  interactions: Interaction[];
}

type Context = 'none' | 'issue' | 'exchange' | 'collaborator' | 'collaboratorExchange';

/**
 * Burp Suite XML issue export (`issues`) → normalized findings, streaming. Rules B1–B5 of
 * EXPECTED.json and SCANNERS.md section 3: one occurrence per issue, grouped by type (extension
 * issues by type + name), severity = max over occurrences, confidence kept apart, requests and
 * responses decoded only when base64="true".
 */
export class BurpParser extends XmlScanParser {
  private readonly stats: BurpStats = {
    occurrences: 0,
    findings: 0,
    quirk: null,
    issues: 0,
    requestResponsePairs: 0,
    collaboratorEvents: 0,
    base64FalsePresent: false,
  };
  private readonly assets = new Map<string, Asset>();

  private context: Context = 'none';
  private issue: IssueState | null = null;
  private exchange: HttpExchange | null = null;
  private interaction: Interaction | null = null;
  /** the element whose text is being collected, with its base64 flag for request/response */
  private field: string | null = null;
  private fieldBase64 = false;

  constructor() {
    super('burp');
  }

  end(): BurpParseResult {
    return { format: 'burp', ...this.finish(this.stats), stats: this.stats };
  }

  override openElement(name: string, attributes: Record<string, string>, depth: number): boolean {
    switch (this.context) {
      case 'none':
        if (depth === 1) {
          const version = attributes.burpVersion?.trim();
          if (version) this.scannerVersion = retainText(version, 100);
        } else if (depth === 2 && name === 'issue') {
          this.stats.issues++;
          this.issue = { fields: new Map(), hostIp: '', detailItems: [], exchanges: [], interactions: [] };
          this.context = 'issue';
        }
        return false;
      case 'issue':
        return this.openIssueChild(name, attributes, depth);
      case 'exchange':
      case 'collaboratorExchange':
        return this.openExchangeChild(name, attributes);
      case 'collaborator':
        if (name === 'requestresponse') {
          this.exchange = {};
          this.context = 'collaboratorExchange';
          return false;
        }
        if (COLLABORATOR_FIELDS.has(name)) {
          this.field = name;
          return true;
        }
        return false;
    }
  }

  override closeElement(name: string, text: string, depth: number): void {
    const field = this.field;
    this.field = null;
    switch (this.context) {
      case 'issue': {
        const issue = this.issue as IssueState;
        if (depth === 2) {
          this.finishIssue(issue);
          this.issue = null;
          this.context = 'none';
        } else if (field === 'host') {
          issue.fields.set('host', text);
        } else if (field === 'issueDetailItem') {
          const item = htmlToText(text);
          if (item !== '') issue.detailItems.push(item);
        } else if (field !== null) {
          issue.fields.set(field, text);
        }
        return;
      }
      case 'exchange':
      case 'collaboratorExchange': {
        const exchange = this.exchange as HttpExchange;
        if (name === 'requestresponse') {
          if (this.context === 'exchange') (this.issue as IssueState).exchanges.push(exchange);
          else if (this.interaction !== null) {
            if (exchange.request !== undefined) this.interaction.request = exchange.request;
            if (exchange.response !== undefined) this.interaction.response = exchange.response;
          }
          this.exchange = null;
          this.context = this.context === 'exchange' ? 'issue' : 'collaborator';
        } else if (field === 'request' || field === 'response') {
          const message = decodeBurpMessage(text, this.fieldBase64);
          if (message !== undefined) exchange[field] = message;
        }
        return;
      }
      case 'collaborator': {
        const interaction = this.interaction as Interaction;
        if (name === 'collaboratorEvent') {
          const issue = this.issue as IssueState;
          if (issue.interactions.length < LIMITS.interactions) issue.interactions.push(interaction);
          this.interaction = null;
          this.context = 'issue';
        } else if (field !== null) {
          const key = COLLABORATOR_FIELDS.get(field);
          const value = text.trim();
          if (key !== undefined && value !== '')
            interaction[key] = retainText(value, key === 'lookupHost' ? 500 : key === 'type' ? 50 : 64);
        }
        return;
      }
      case 'none':
        return;
    }
  }

  private openIssueChild(name: string, attributes: Record<string, string>, depth: number): boolean {
    const issue = this.issue as IssueState;
    if (depth === 3) {
      if (name === 'requestresponse') {
        this.stats.requestResponsePairs++;
        this.exchange = {};
        this.context = 'exchange';
        return false;
      }
      if (name === 'collaboratorEvent') {
        this.stats.collaboratorEvents++;
        this.interaction = { type: 'unknown' };
        this.context = 'collaborator';
        return false;
      }
      if (!ISSUE_FIELDS.has(name)) return false;
      // Why: type and name precede the backgrounds, so a finding we already have needs no second copy of them.
      if (BACKGROUND_FIELDS.has(name) && this.merger.has(groupKeyOf(issue.fields))) return false;
      if (name === 'host') issue.hostIp = attributes.ip ?? '';
      this.field = name;
      return true;
    }
    if (depth === 4 && name === 'issueDetailItem') {
      this.field = name;
      return true;
    }
    return false;
  }

  private openExchangeChild(name: string, attributes: Record<string, string>): boolean {
    if (name !== 'request' && name !== 'response') return false;
    this.fieldBase64 = attributes.base64 === 'true';
    if (attributes.base64 === 'false') this.stats.base64FalsePresent = true;
    if (name === 'request' && attributes.method)
      (this.exchange as HttpExchange).method = retainText(attributes.method, 32);
    this.field = name;
    return true;
  }

  private finishIssue(issue: IssueState): void {
    const fields = issue.fields;
    const groupKey = groupKeyOf(fields);
    const type = (fields.get('type') ?? '').trim();
    const name = (fields.get('name') ?? '').trim();
    if (type === '' && name === '') {
      this.warnings.add(
        `Issue ${fields.get('serialNumber')?.trim() ?? '(no serial number)'} has neither type nor name; skipped.`,
      );
      return;
    }
    const severityText = (fields.get('severity') ?? '').trim();
    let severity = SEVERITY[severityText.toLowerCase()];
    if (severity === undefined) {
      this.warnings.add(`Issue "${name}" has severity "${severityText}"; treated as info.`);
      severity = 'info';
    }

    const occurrence: CompleteOccurrence = {
      asset: this.assetOf((fields.get('host') ?? '').trim(), issue.hostIp.trim()),
      severity,
    };
    const origin = parseOrigin(occurrence.asset.id);
    if (origin !== null) {
      occurrence.port = origin.port;
      occurrence.protocol = 'tcp';
      occurrence.service = origin.scheme;
    }
    const path = fields.get('path') ?? '';
    if (path !== '') {
      occurrence.path = retainText(path, LIMITS.urlChars);
      occurrence.url = retainText(occurrence.asset.id.replace(/\/$/, '') + path, LIMITS.urlChars);
    }
    const parameter = parameterOf(fields.get('location') ?? '', path);
    if (parameter !== null) occurrence.parameter = retainText(parameter, 1_000);
    const confidence = CONFIDENCE[(fields.get('confidence') ?? '').trim().toLowerCase()];
    if (confidence !== undefined) occurrence.confidence = confidence;

    const detailHtml = fields.get('issueDetail')?.trim() ?? '';
    let detail = detailHtml === '' ? '' : htmlToText(detailHtml);
    if (issue.detailItems.length > 0)
      detail += (detail === '' ? '' : '\n\n') + issue.detailItems.map((item) => `- ${item}`).join('\n');
    if (detail !== '') occurrence.detail = retainText(detail, LIMITS.textChars);
    if (detailHtml !== '') occurrence.detailHtml = retainText(detailHtml, LIMITS.textChars);
    const evidence = evidenceOf(issue);
    if (evidence !== null) occurrence.evidence = evidence;

    const cwes: number[] = [];
    for (const match of (fields.get('vulnerabilityClassifications') ?? '').matchAll(/CWE-(\d{1,6})/g)) {
      const cwe = Number(match[1]);
      if (cwe > 0) cwes.push(cwe);
    }
    const references = extractLinks(fields.get('references') ?? '').map((link) =>
      retainText(link, LIMITS.referenceChars),
    );

    this.merger.add(
      groupKey,
      occurrence,
      severityText,
      () => this.seedFinding(fields, type, name, severity, severityText, confidence),
      {
        cwes,
        references,
      },
    );
  }

  private seedFinding(
    fields: Map<string, string>,
    type: string,
    name: string,
    severity: Severity,
    severityRaw: string,
    confidence: Confidence | undefined,
  ): FindingSeed {
    const backgroundHtml = fields.get('issueBackground')?.trim() ?? '';
    const remediationHtml = [
      fields.get('remediationDetail')?.trim() ?? '',
      fields.get('remediationBackground')?.trim() ?? '',
    ]
      .filter((part) => part !== '')
      .join('\n');
    const remediation = [fields.get('remediationDetail') ?? '', fields.get('remediationBackground') ?? '']
      .map((part) => htmlToText(part))
      .filter((part) => part !== '')
      .join('\n\n');
    const seed: FindingSeed = {
      source: { scanner: 'burp' },
      ruleId: retainText(type || name, LIMITS.keyChars),
      title: retainText(name || `Burp issue type ${type}`, LIMITS.titleChars),
      severity,
      severityRaw: retainText(severityRaw, 100),
      confidence: confidence ?? null,
      description: retainText(htmlToText(backgroundHtml), LIMITS.textChars),
      impact: null,
      remediation: remediation === '' ? null : retainText(remediation, LIMITS.textChars),
      cvss: [],
    };
    if (backgroundHtml !== '') seed.descriptionHtml = retainText(backgroundHtml, LIMITS.textChars);
    if (remediationHtml !== '') seed.remediationHtml = retainText(remediationHtml, LIMITS.textChars);
    return seed;
  }

  /** One shared asset object per origin. */
  private assetOf(host: string, ip: string): Asset {
    const key = `${host}\u0000${ip}`;
    let asset = this.assets.get(key);
    if (asset === undefined) {
      asset = { id: retainText(host, LIMITS.assetIdChars) };
      if (ip !== '') asset.ip = retainText(ip, 64);
      const origin = parseOrigin(host);
      if (origin !== null && origin.hostname !== '') asset.hostname = retainText(origin.hostname, 255);
      this.assets.set(key, asset);
    }
    return asset;
  }
}

function groupKeyOf(fields: Map<string, string>): string {
  const type = (fields.get('type') ?? '').trim();
  const name = (fields.get('name') ?? '').trim();
  if (type === '') return `|${name}`;
  return type === EXTENSION_ISSUE_TYPE ? `${type}|${name}` : type;
}

function parseOrigin(host: string): { scheme: string; hostname: string; port: number } | null {
  try {
    const url = new URL(host);
    const scheme = url.protocol.replace(/:$/, '');
    const port = url.port !== '' ? Number(url.port) : scheme === 'https' ? 443 : scheme === 'http' ? 80 : Number.NaN;
    if (!Number.isInteger(port)) return null;
    return { scheme, hostname: url.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return null;
  }
}

/**
 * The parameter is the bracketed text Burp appends to the path in <location>, e.g.
 * `/showimage.php [file parameter]`. Why not a greedy regex: paths with payloads contain `[` too
 * (DefectDojo breaks on dd__issue4399.xml), so the suffix after the path is used when it matches.
 */
function parameterOf(location: string, path: string): string | null {
  const suffix = path !== '' && location.startsWith(path) ? location.slice(path.length) : null;
  const match =
    suffix !== null ? /^\s*\[([^\]]*(?:\][^\]]*)*)\]\s*$/.exec(suffix) : /\s\[([^[\]]+)\]\s*$/.exec(location);
  const parameter = match?.[1]?.trim() ?? '';
  return parameter === '' ? null : parameter;
}

function evidenceOf(issue: IssueState): Evidence | null {
  const evidence: Evidence = {};
  const [first, ...rest] = issue.exchanges;
  if (first !== undefined) {
    if (first.method !== undefined) evidence.method = first.method;
    if (first.request !== undefined) evidence.request = first.request;
    if (first.response !== undefined) evidence.response = first.response;
  }
  if (rest.length > 0) evidence.additionalExchanges = rest.slice(0, LIMITS.exchanges);
  if (issue.interactions.length > 0) evidence.interactions = issue.interactions;
  return Object.keys(evidence).length === 0 ? null : evidence;
}
