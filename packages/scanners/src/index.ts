export type { ScanFormat } from './scan-format.ts';
export { SCAN_FORMATS } from './scan-format.ts';
export { ScanParseError } from './scan-parse-error.ts';
export { detectFormat } from './detect-format.ts';
export { parseScan, parseScanStream, type ParseScanOptions, type ParseScanStreamOptions } from './parse-scan.ts';
export type {
  BurpParseResult,
  BurpStats,
  NessusParseResult,
  NessusStats,
  NmapParseResult,
  NmapStats,
  NucleiParseResult,
  NucleiStats,
  ParseQuirk,
  ParseResult,
  ParseStats,
} from './parse-result.ts';
export {
  NormalizedFindingSchema,
  type Asset,
  type CompleteFinding,
  type CompleteOccurrence,
  type Compliance,
  type Confidence,
  type Evidence,
  type HttpExchange,
  type Interaction,
  type NormalizedFinding,
  type Occurrence,
} from './normalized-finding.ts';
export { normalizeFindingInput } from './normalize-finding-input.ts';
export { LIMITS } from './limits.ts';
export { affectedAssetsOf, evidenceText, hostOfAssetId, toAffectedAsset } from './affected-assets.ts';
export { findingOfScanResult } from './finding-of-scan-result.ts';
export {
  BURP_EXTENSION_ISSUE_TYPE,
  cpeCovers,
  normalizeCpe,
  parseScannerRule,
  OCCURRENCE_CONDITION_KINDS,
  RULE_CONDITION_KINDS,
  RULE_CONDITION_SEPARATOR,
  RULE_MAX_CHARS,
  type RuleCondition,
  type RuleConditionKind,
  type ScannerRule,
  ruleIdProblem,
  SCAN_FORMAT_LABELS,
  SCANNER_RULE_EXAMPLES,
  SCANNERS,
} from './scan-format.ts';
export { PATTERN_CONDITION_KINDS, SCANNER_RULE_PATTERN } from './scanner-rule-pattern.ts';
export {
  compileTitlePattern,
  TITLE_PATTERN_MAX_CHARS,
  TITLE_PATTERN_RULE,
  titlePatternProblem,
} from './title-pattern.ts';
export { COMPLIANCE_CHECK_TYPE } from './parse-nessus.ts';
export { NMAP_SCRIPT_RULES, VULNS_LIBRARY_SCRIPTS } from './nmap-scripts.ts';
export { NSE_SCRIPT_CHECK_TYPE } from './parse-nmap.ts';
export { originOf, scanCoverageOf, type ScanCoverage } from './scan-coverage.ts';
