import { LIMITS } from './limits.ts';
import type { Asset, CompleteOccurrence } from './normalized-finding.ts';
import { normalizeCve } from './normalize-identifiers.ts';
import { parseCvssScore } from '@service/report-model';
import type { NmapParseResult, NmapStats } from './parse-result.ts';
import { retainText, TextInterner } from './retain-text.ts';
import { severityFromCvssScore } from '@service/report-model';
import { XmlScanParser } from './xml-scan-parser.ts';
import { interpretScript, type ScriptResult } from './nmap-scripts.ts';

/** `checkType` of a finding an NSE script's output reports. */
export const NSE_SCRIPT_CHECK_TYPE = 'nse-script';

interface ScriptOutput {
  id: string;
  output: string;
}

interface VulnersEntry {
  id: string;
  type: string;
  cvss: string;
  isExploit: boolean;
  cpe: string;
}

interface PortState {
  portid: number;
  protocol: string;
  state: string;
  service: string;
  serviceDetail: string;
  /** `service/cpe` texts */
  cpes: string[];
  scripts: ScriptOutput[];
  vulners: VulnersEntry[];
}

interface HostState {
  status: string;
  ipv4: string;
  ipv6: string;
  mac: string;
  hostnames: { name: string; type: string }[];
  os: string;
  osAccuracy: number;
  startTime: string;
  endTime: string;
  ports: PortState[];
  hostScripts: ScriptOutput[];
}

/**
 * Nmap XML (`-oX`, root `nmaprun`) → normalized findings, streaming. Rules M1–M6 of EXPECTED.json
 * and SCANNERS.md section 4: hosts that are not up are ignored; every port whose state is exactly
 * `open` is an info occurrence keyed `<port>/<protocol>`; every vulners table entry is an occurrence
 * keyed by its id with severity from its CVSS score; other NSE scripts are evidence.
 */
export class NmapParser extends XmlScanParser {
  private readonly stats: NmapStats = {
    occurrences: 0,
    findings: 0,
    quirk: null,
    hostsTotal: 0,
    hostsUp: 0,
    hostsWithOpenPorts: 0,
    openPortOccurrences: 0,
    vulnersOccurrences: 0,
    scriptOccurrences: 0,
    portStates: {},
    nseScripts: {},
  };
  private readonly interner = new TextInterner();
  private scanStart = '';
  /** hosts whose closing tag was read */
  private hostsFinished = 0;

  private host: HostState | null = null;
  private port: PortState | null = null;
  private script: ScriptOutput | null = null;
  /** vulners script nesting: 1 inside a CPE table, 2 inside one entry */
  private vulnersTableDepth = 0;
  private vulnersCpe = '';
  private vulnersEntry: Record<string, string> | null = null;
  private elemKey: string | null = null;

  constructor() {
    super('nmap');
  }

  end(): NmapParseResult {
    // Why tolerate a cut-off file: an interrupted scan still wrote every finished host completely.
    const outcome = this.finish(this.stats, (error) => {
      if (this.hostsFinished === 0) return false;
      this.warnings.add(
        `The file ends early (${error.message.replace(/^Nmap file is not well-formed XML/, 'at').replace(/\.$/, '')}); ` +
          `the scan was probably interrupted. The ${this.hostsFinished} hosts written completely are imported; ` +
          `the host the file ends in is left out.`,
      );
      return true;
    });
    return { format: 'nmap', ...outcome, stats: this.stats };
  }

  override openElement(name: string, attributes: Record<string, string>, depth: number): boolean {
    if (depth === 1) {
      if (attributes.version) this.scannerVersion = retainText(attributes.version, 100);
      this.scanStart = attributes.start ?? '';
      return false;
    }
    const host = this.host;
    if (host === null) {
      if (name === 'host') {
        this.stats.hostsTotal++;
        this.host = {
          status: '',
          ipv4: '',
          ipv6: '',
          mac: '',
          hostnames: [],
          os: '',
          osAccuracy: -1,
          startTime: attributes.starttime ?? '',
          endTime: attributes.endtime ?? '',
          ports: [],
          hostScripts: [],
        };
      }
      return false;
    }
    if (this.script !== null) return this.openScriptChild(name, attributes);
    switch (name) {
      case 'status':
        host.status = attributes.state ?? '';
        return false;
      case 'address':
        this.readAddress(host, attributes);
        return false;
      case 'hostname':
        if (attributes.name) host.hostnames.push({ name: attributes.name, type: attributes.type ?? '' });
        return false;
      case 'port':
        this.port = {
          portid: Number.parseInt(attributes.portid ?? '', 10),
          protocol: (attributes.protocol ?? '').toLowerCase(),
          state: '',
          service: '',
          serviceDetail: '',
          cpes: [],
          scripts: [],
          vulners: [],
        };
        return false;
      case 'state':
        if (this.port !== null) this.port.state = attributes.state ?? '';
        return false;
      case 'service':
        if (this.port !== null) this.readService(this.port, attributes);
        return false;
      case 'cpe':
        // Why collect: the service's CPE names the product, which library rules can match (cpe=).
        return this.port !== null;
      case 'script':
        this.script = { id: attributes.id ?? '', output: attributes.output ?? '' };
        this.vulnersTableDepth = 0;
        return false;
      case 'osmatch': {
        const accuracy = Number(attributes.accuracy ?? 0);
        if (attributes.name && accuracy > host.osAccuracy) {
          host.os = attributes.name;
          host.osAccuracy = accuracy;
        }
        return false;
      }
      default:
        return false;
    }
  }

  override closeElement(name: string, text: string): void {
    if (this.host === null) return;
    if (this.script !== null) {
      if (name === 'script') this.finishScript(this.script);
      else this.closeScriptChild(name, text);
      return;
    }
    if (name === 'cpe' && this.port !== null) {
      const cpe = text.trim();
      if (cpe !== '' && this.port.cpes.length < LIMITS.cpes && !this.port.cpes.includes(cpe))
        this.port.cpes.push(retainText(cpe, 300));
    } else if (name === 'port' && this.port !== null) {
      this.host.ports.push(this.port);
      this.port = null;
    } else if (name === 'host') {
      this.hostsFinished++;
      this.finishHost(this.host);
      this.host = null;
    }
  }

  private readAddress(host: HostState, attributes: Record<string, string>): void {
    const address = attributes.addr ?? '';
    switch (attributes.addrtype) {
      case 'ipv4':
        host.ipv4 ||= address;
        break;
      case 'ipv6':
        host.ipv6 ||= address;
        break;
      case 'mac':
        host.mac ||= address;
        break;
    }
  }

  private readService(port: PortState, attributes: Record<string, string>): void {
    let name = attributes.name ?? '';
    // Why: nmap reports TLS-wrapped HTTP as service http with tunnel="ssl".
    if (attributes.tunnel === 'ssl' && name === 'http') name = 'https';
    port.service = name;
    port.serviceDetail = [
      attributes.product,
      attributes.version,
      attributes.extrainfo ? `(${attributes.extrainfo})` : undefined,
    ]
      .filter((part) => part !== undefined && part !== '')
      .join(' ');
  }

  /** Inside a vulners script: table key=<cpe> / table / elem key=id|cvss|type|is_exploit. */
  private openScriptChild(name: string, attributes: Record<string, string>): boolean {
    if ((this.script as ScriptOutput).id !== 'vulners') return false;
    if (name === 'table') {
      this.vulnersTableDepth++;
      if (this.vulnersTableDepth === 1) this.vulnersCpe = attributes.key ?? '';
      else if (this.vulnersTableDepth === 2) this.vulnersEntry = {};
      return false;
    }
    if (name === 'elem' && this.vulnersTableDepth === 2 && attributes.key) {
      this.elemKey = attributes.key;
      return true;
    }
    return false;
  }

  private closeScriptChild(name: string, text: string): void {
    if (name === 'elem' && this.elemKey !== null) {
      if (this.vulnersEntry !== null) this.vulnersEntry[this.elemKey] = text.trim();
      this.elemKey = null;
    } else if (name === 'table') {
      if (this.vulnersTableDepth === 2 && this.vulnersEntry !== null) {
        this.addVulnersEntry(this.vulnersEntry);
        this.vulnersEntry = null;
      }
      this.vulnersTableDepth--;
    }
  }

  private addVulnersEntry(entry: Record<string, string>): void {
    if (this.port === null || !entry.id) return;
    this.port.vulners.push({
      id: entry.id,
      type: entry.type ?? '',
      cvss: entry.cvss ?? '',
      isExploit: entry.is_exploit === 'true',
      cpe: this.vulnersCpe,
    });
  }

  private finishScript(script: ScriptOutput): void {
    this.script = null;
    if (this.port !== null) {
      // Why: older vulners versions only write the text output, one `id<TAB>cvss<TAB>url` line per entry.
      if (script.id === 'vulners' && this.port.vulners.length === 0)
        this.port.vulners.push(...vulnersFromOutput(script.output));
      this.port.scripts.push(script);
    } else {
      (this.host as HostState).hostScripts.push(script);
    }
  }

  private finishHost(host: HostState): void {
    if (host.status !== 'up') return;
    this.stats.hostsUp++;
    const stats = this.stats;
    for (const script of host.hostScripts) count(stats.nseScripts, `host:${script.id}`);
    for (const port of host.ports) {
      count(stats.portStates, port.state);
      for (const script of port.scripts) count(stats.nseScripts, `port:${script.id}`);
    }
    const openPorts = host.ports.filter((port) => port.state === 'open' && Number.isInteger(port.portid));
    if (openPorts.length === 0) return;
    stats.hostsWithOpenPorts++;

    const asset = assetOf(host);
    const firstSeen = epochToIso(host.startTime) ?? epochToIso(this.scanStart);
    const scanTime = new Date(epochToIso(host.endTime) ?? firstSeen ?? new Date().toISOString());
    for (const script of host.hostScripts) this.addScriptFindings(asset, null, script, firstSeen, scanTime);
    const hostEvidence = host.hostScripts
      .map((script) => `[host script ${script.id}]\n${script.output.trim()}`)
      .join('\n\n');

    for (const port of openPorts) {
      const portKey = `${port.portid}/${port.protocol}`;
      const occurrence = this.occurrenceOf(asset, port, firstSeen, 'info');
      const output = [
        port.serviceDetail,
        ...port.scripts.map((script) => `[${script.id}]\n${script.output.trim()}`),
        hostEvidence,
      ]
        .filter((part) => part !== '')
        .join('\n\n');
      if (output !== '') occurrence.evidence = { output: retainText(output, LIMITS.evidenceChars) };
      stats.openPortOccurrences++;
      this.merger.add(portKey, occurrence, 'info', () => ({
        source: { scanner: 'nmap' },
        ruleId: `open-port:${portKey}`,
        title: `Open port: ${portKey}`,
        severity: 'info',
        severityRaw: 'info',
        confidence: null,
        description: '',
        impact: null,
        remediation: null,
        cvss: [],
        checkType: 'open-port',
        ...(port.cpes.length > 0 ? { cpes: port.cpes } : {}),
      }));
      for (const script of port.scripts) this.addScriptFindings(asset, port, script, firstSeen, scanTime);

      for (const entry of port.vulners) {
        const score = parseCvssScore(entry.cvss);
        const severity = score === null ? 'info' : severityFromCvssScore(score);
        const vulnOccurrence = this.occurrenceOf(asset, port, firstSeen, severity);
        vulnOccurrence.evidence = {
          output: retainText(
            `${entry.cpe ? `${entry.cpe}: ` : ''}${entry.id} cvss ` +
              `${entry.cvss || 'n/a'}${entry.isExploit ? ' (exploit available)' : ''}`,
            LIMITS.evidenceChars,
          ),
        };
        stats.vulnersOccurrences++;
        const known = this.merger.has(entry.id);
        const cve = entry.type === 'cve' && !known ? normalizeCve(entry.id) : null;
        this.merger.add(
          entry.id,
          vulnOccurrence,
          this.interner.intern(entry.cvss),
          () => {
            const id = retainText(entry.id, LIMITS.titleChars);
            return {
              source: { scanner: 'nmap' },
              ruleId: id,
              title: id,
              severity,
              severityRaw: this.interner.intern(entry.cvss),
              confidence: null,
              description: '',
              impact: null,
              remediation: null,
              cvss: [],
              checkType: this.interner.intern(entry.type || 'vulners'),
              ...(entry.cpe ? { cpes: [retainText(entry.cpe, 300)] } : {}),
            };
          },
          // Why only for a new id: a vulners id always names the same CVE and page.
          known
            ? undefined
            : {
                cves: cve === null ? [] : [cve],
                references: [
                  retainText(`https://vulners.com/${entry.type || 'search'}/${entry.id}`, LIMITS.referenceChars),
                ],
              },
        );
      }
    }
  }

  /** The findings an NSE script's output reports on a port (or the host, for host scripts). */
  private addScriptFindings(
    asset: Asset,
    port: PortState | null,
    script: ScriptOutput,
    firstSeen: string | undefined,
    scanTime: Date,
  ): void {
    const results = interpretScript(script.id, script.output, { scanTime });
    for (const result of results) {
      const occurrence: CompleteOccurrence =
        port === null
          ? { asset, severity: result.severity }
          : this.occurrenceOf(asset, port, firstSeen, result.severity);
      if (port === null && firstSeen !== undefined) occurrence.firstSeen = firstSeen;
      const output = [result.detail, `[${script.id}]\n${script.output.trim()}`].filter((p) => p).join('\n\n');
      occurrence.evidence = { output: retainText(output, LIMITS.evidenceChars) };
      this.stats.scriptOccurrences++;
      const groupKey = `script|${result.scriptId}|${result.condition ?? ''}`;
      const known = this.merger.has(groupKey);
      this.merger.add(groupKey, occurrence, result.severity, () => this.seedScriptFinding(result, port), {
        cves: result.cves,
        references: known
          ? undefined
          : [
              ...(result.references ?? []),
              `https://nmap.org/nsedoc/scripts/${encodeURIComponent(result.scriptId)}.html`,
            ],
      });
    }
  }

  private seedScriptFinding(result: ScriptResult, port: PortState | null) {
    return {
      source: { scanner: 'nmap' as const },
      ruleId: retainText(result.scriptId, LIMITS.keyChars),
      title: retainText(result.title, LIMITS.titleChars),
      severity: result.severity,
      severityRaw: result.severity,
      confidence: null,
      description: '',
      impact: null,
      remediation: null,
      cvss: [],
      checkType: NSE_SCRIPT_CHECK_TYPE,
      ...(result.condition ? { matcherName: result.condition } : {}),
      ...(port !== null && port.cpes.length > 0 ? { cpes: port.cpes } : {}),
    };
  }

  private occurrenceOf(
    asset: Asset,
    port: PortState,
    firstSeen: string | undefined,
    severity: CompleteOccurrence['severity'],
  ): CompleteOccurrence {
    const occurrence: CompleteOccurrence = { asset, port: port.portid, severity };
    if (port.protocol !== '') occurrence.protocol = this.interner.intern(port.protocol, 20);
    if (port.service !== '') occurrence.service = this.interner.intern(port.service);
    if (firstSeen !== undefined) occurrence.firstSeen = firstSeen;
    return occurrence;
  }
}

function assetOf(host: HostState): Asset {
  const asset: Asset = { id: retainText(host.ipv4 || host.ipv6 || host.mac, LIMITS.assetIdChars) };
  const ip = host.ipv4 || host.ipv6;
  if (ip !== '') asset.ip = retainText(ip, 64);
  if (host.mac !== '') asset.mac = retainText(host.mac, 64);
  const hostname = host.hostnames.find((h) => h.type === 'PTR') ?? host.hostnames[0];
  if (hostname !== undefined) asset.hostname = retainText(hostname.name, 255);
  if (host.os !== '')
    asset.os = retainText(host.osAccuracy >= 0 ? `${host.os} (accuracy ${host.osAccuracy}%)` : host.os, 500);
  return asset;
}

function vulnersFromOutput(output: string): VulnersEntry[] {
  const entries: VulnersEntry[] = [];
  let cpe = '';
  for (const line of output.split('\n')) {
    const cpeLine = /^\s*(cpe:\/\S+?):?\s*$/.exec(line);
    if (cpeLine !== null) {
      cpe = cpeLine[1] ?? '';
      continue;
    }
    const match = /^\s*(\S+)\t+(\d+(?:\.\d+)?)\t+(https?:\/\/\S+)(\s+\*EXPLOIT\*)?/.exec(line);
    if (match === null) continue;
    const [, id = '', cvss = '', url = '', exploit] = match;
    const type = /vulners\.com\/([^/]+)\//.exec(url)?.[1] ?? '';
    entries.push({ id, type, cvss, isExploit: exploit !== undefined, cpe });
  }
  return entries;
}

function epochToIso(epoch: string): string | undefined {
  const seconds = Number(epoch);
  return epoch !== '' && Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000).toISOString() : undefined;
}

function count(tally: Record<string, number>, key: string): void {
  tally[key] = (tally[key] ?? 0) + 1;
}
