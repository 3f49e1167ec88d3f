/**
 * Size caps, in one place so the schema, the parsers and the tests agree.
 * Why: scanner exports reach hundreds of MB and are uploaded by users, so every string we keep and
 * every buffer we grow has a ceiling.
 */
import { TEXT_LIMITS } from '@service/report-model';

/* Why the report model's caps: what a parser keeps becomes a finding, and every finding the API
 * returns must be accepted back by it (GET then PATCH round trip). */
export const LIMITS = {
  /** finding title */
  titleChars: TEXT_LIMITS.title,
  /** ruleId, groupKey and similar keys */
  keyChars: 1_000,
  /** description, impact, remediation, per-occurrence detail */
  textChars: 200_000,
  /** each evidence field (plugin output, request, response, ...) */
  evidenceChars: 1_048_576,
  /** Burp request/response messages kept per exchange (Dradis truncates at the same size) */
  httpMessageChars: 50_000,
  /** one reference (URL or free text) */
  referenceChars: TEXT_LIMITS.reference,
  references: TEXT_LIMITS.references,
  cves: TEXT_LIMITS.cves,
  cwes: TEXT_LIMITS.cwes,
  cvssEntries: TEXT_LIMITS.cvssEntries,
  extractedValues: 1_000,
  /** CPE names of one finding */
  cpes: 50,
  /** Nuclei tags of one finding */
  tags: 100,
  exchanges: 100,
  interactions: 100,
  occurrences: 1_000_000,
  /** asset id: an IP, a host name or (Tenable WAS, Burp) a URL */
  assetIdChars: TEXT_LIMITS.host,
  urlChars: TEXT_LIMITS.url,
  /** XML elements nested deeper than this are an attack (nesting bomb), not a scan */
  xmlDepth: 256,
  /**
   * characters saxes may buffer for one text node, CDATA section, comment, DOCTYPE or tag before the
   * file is refused. Why this high: saxes sees a node whole before we can look at it, and a Burp
   * response of a large download is a legitimate node of many MB.
   */
  xmlNodeChars: 32 * 1024 * 1024,
  /** characters of one element's text we keep for mapping; every stored field is capped lower still */
  collectedTextChars: 5 * 1024 * 1024,
  /** one Nuclei JSON record */
  jsonRecordChars: 32 * 1024 * 1024,
  /** warnings kept in a ParseResult; further ones are only counted */
  warnings: 100,
} as const;
