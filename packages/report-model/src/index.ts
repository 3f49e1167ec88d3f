export { SEVERITIES, SEVERITIES_DESCENDING, SeveritySchema, compareSeverityDescending, isSeverity, maxSeverity, severityFromCvssScore, severityRank, type Severity } from './severity.ts';
export { CVSS_VERSIONS, CvssSchema, CvssVersionSchema, cvssVersionOfVector, normalizeCvssVector, parseCvssScore, scoreCvssVector, type Cvss, type CvssScores, type CvssVersion } from './cvss.ts';
export { AffectedAssetListSchema, AffectedAssetSchema, affectedAssetKey, appendEvidence, mergeAffectedAssets, type AffectedAsset } from './affected-asset.ts';
export {
  CveIdSchema,
  CweIdSchema,
  emptyFinding,
  FINDING_SOURCE_KINDS,
  FINDING_STATUSES,
  FindingContentProperties,
  FindingContentSchema,
  FindingProperties,
  FindingSchema,
  FindingSourceSchema,
  FindingStatusSchema,
  type Finding,
  type FindingContent,
  type FindingSource,
  type FindingStatus,
} from './finding.ts';
export {
  ClientContactSchema,
  ClientProperties,
  EVIDENCE_CONTENT_TYPES,
  EvidenceRefSchema,
  LanguageSchema,
  PROJECT_STATUSES,
  ProjectProperties,
  REPORT_STATUSES,
  ReportLinkProperties,
  ReportProperties,
  ReportStatusSchema,
  ReportTabProperties,
  ReportTemplateTabSchema,
  type EvidenceRef,
  type ReportStatus,
  type ReportTemplateTab,
} from './report.ts';
export { DEFAULT_REPORT_STYLE, PAGE_SIZES, ReportStyleProperties, ReportStyleSchema, resolveReportStyle, type PageSize, type ReportStyle, type ResolvedReportStyle } from './report-style.ts';
export {
  LibraryItemRefSchema,
  ReportDocumentFindingSchema,
  ReportDocumentLinkSchema,
  ReportDocumentSchema,
  ReportDocumentTabSchema,
  type LibraryItemRef,
  type ReportDocument,
  type ReportDocumentFinding,
  type ReportDocumentLink,
  type ReportDocumentTab,
} from './report-document.ts';
export { IsoDate, MarkdownText, TEXT_LIMITS, Timestamp, Title, Uuid } from './text.ts';
