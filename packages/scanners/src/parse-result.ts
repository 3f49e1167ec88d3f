import type { CompleteFinding } from './normalized-finding.ts';

/** Irregularities the parser tolerated; EXPECTED.json calls them quirks. */
export type ParseQuirk = 'content_before_xml_declaration';

export interface CommonStats {
  /** scanner records turned into occurrences */
  occurrences: number;
  findings: number;
  quirk: ParseQuirk | null;
}

export interface NessusStats extends CommonStats {
  /** ReportHost elements, with or without items */
  reportHosts: number;
  /** ReportHosts with at least one kept ReportItem */
  hostsWithFindings: number;
  /** every ReportItem, including skipped ones */
  reportItems: number;
  /** Nessus 4 open-port placeholders (pluginID 0), not turned into findings */
  skippedPluginId0: number;
  /** raw risk_factor text → occurrences; informational only, severity comes from @severity */
  riskFactors: Record<string, number>;
  /** compliance result (PASSED, FAILED, ...) → occurrences */
  complianceResults: Record<string, number>;
}

export interface BurpStats extends CommonStats {
  issues: number;
  /** requestresponse pairs directly under an issue (not those inside collaborator events) */
  requestResponsePairs: number;
  collaboratorEvents: number;
  /** some request/response was stored as plain text (base64="false") */
  base64FalsePresent: boolean;
}

export interface NmapStats extends CommonStats {
  /** host elements, whatever their state */
  hostsTotal: number;
  hostsUp: number;
  hostsWithOpenPorts: number;
  openPortOccurrences: number;
  vulnersOccurrences: number;
  /** occurrences of findings NSE script output reports (ssl-cert:expired, ftp-anon, ...) */
  scriptOccurrences: number;
  /** port state → ports listed on up hosts */
  portStates: Record<string, number>;
  /** `port:<script id>` / `host:<script id>` → script elements on up hosts */
  nseScripts: Record<string, number>;
}

export interface NucleiStats extends CommonStats {
  inputShape: 'empty' | 'jsonl' | 'json_array';
  records: number;
  /** records with none of host, matched-at, url, ip */
  recordsWithoutAsset: number;
}

interface ResultBase {
  /** the version the file states (Burp burpVersion, Nmap version, Nessus scan information plugin) */
  scannerVersion?: string;
  findings: CompleteFinding[];
  /** things a person may want to know about the file (skipped content, truncated evidence, ...) */
  warnings: string[];
}

export type NessusParseResult = ResultBase & { format: 'nessus'; stats: NessusStats };
export type BurpParseResult = ResultBase & { format: 'burp'; stats: BurpStats };
export type NmapParseResult = ResultBase & { format: 'nmap'; stats: NmapStats };
export type NucleiParseResult = ResultBase & { format: 'nuclei'; stats: NucleiStats };

export type ParseResult = NessusParseResult | BurpParseResult | NmapParseResult | NucleiParseResult;
export type ParseStats = ParseResult['stats'];
