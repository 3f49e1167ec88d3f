// Why the types entry: the package's main entry holds Node helpers (files, streams) a browser cannot load.
import type { components } from '@service/client/types';

/** The shapes the workspace shows, as the generated types of the REST API's OpenAPI document name them. */
type Schemas = components['schemas'];
export type Client = Schemas['Client'];
export type Project = Schemas['Project'];
export type Report = Schemas['Report'];
export type ReportTab = Schemas['ReportTab'];
export type ReportFinding = Schemas['ReportFinding'];
export type Finding = Schemas['Finding'];
export type FindingTemplate = Schemas['FindingTemplate'];
export type EvidenceImage = Schemas['EvidenceImage'];
export type RetestResult = Schemas['RetestResult'];
export type ReportStyle = Schemas['ReportStyle'];
export type ReportTemplate = Schemas['ReportTemplate'];
export type TrashItem = Schemas['TrashItem'];
export type ScanImportResult = Schemas['ScanImportResult'];
export type ErrorBody = Schemas['Error'];
export type Severity = Finding['severity'];
export type FindingStatus = Finding['status'];
export type RetestStatus = RetestResult['status'];
export type AffectedAsset = Finding['affectedAssets'][number];
export type Cvss = Finding['cvss'][number];
export type UpdateFinding = Schemas['UpdateFindingRequest'];
export type UpdateReport = Schemas['UpdateReportRequest'];
export type UpdateReportTab = Schemas['UpdateReportTabRequest'];
