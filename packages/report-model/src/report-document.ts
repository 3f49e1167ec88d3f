import { Type } from 'typebox';
import { LINK, ReportLinkProperties } from './link-fields.ts';
import { REPORT_PROJECT } from './project-fields.ts';
import { emptyReportFields, ReportProperties } from './report-fields.ts';
import { EvidenceRefSchema } from './report.ts';
import { emptyTabFields, ReportTabProperties } from './tab-fields.ts';
import { emptyFinding, FindingProperties, type Finding } from './finding-fields.ts';
import { RetestInfoSchema, RetestResultSchema } from './retest.ts';
import { Uuid } from './text.ts';

const Evidence = Type.Array(EvidenceRefSchema, { maxItems: 1000 });

export const ReportDocumentTabSchema = Type.Object(
  { ...ReportTabProperties, evidence: Evidence },
  { additionalProperties: false },
);
export type ReportDocumentTab = Type.Static<typeof ReportDocumentTabSchema>;

export const ReportDocumentLinkSchema = Type.Object(ReportLinkProperties, { additionalProperties: false });
export type ReportDocumentLink = Type.Static<typeof ReportDocumentLinkSchema>;

/**
 * A finding as a document holds it: every field, plus its evidence images. `id` when read from a
 * workspace; `retest` (its result in this retest) in a retest report only.
 */
export const ReportDocumentFindingSchema = Type.Object(
  { id: Type.Optional(Uuid), ...FindingProperties, evidence: Evidence, retest: Type.Optional(RetestResultSchema) },
  { additionalProperties: false },
);
export type ReportDocumentFinding = Type.Static<typeof ReportDocumentFindingSchema>;

/** A library item a report names (style or template): by global key when it has one, else by name. */
export const LibraryItemRefSchema = Type.Object(
  {
    id: Type.Optional(Uuid),
    key: Type.Union([Type.String({ maxLength: 300 }), Type.Null()]),
    name: Type.String({ maxLength: 300 }),
  },
  { additionalProperties: false },
);
export type LibraryItemRef = Type.Static<typeof LibraryItemRefSchema>;

/**
 * A whole report: its metadata, client and project, the tabs in order, the links, and every
 * attached finding in report order. Markdown, CSV and DOCX read it; Markdown import and the
 * library write it. Ids are present when it was read from a workspace and absent otherwise;
 * no document format relies on them. A retest report has `retest` (its round and the reports it
 * follows) and a retest result on every finding.
 */
export const ReportDocumentSchema = Type.Object(
  {
    id: Type.Optional(Uuid),
    ...ReportProperties,
    client: Type.Object(
      { id: Type.Optional(Uuid), name: Type.String({ minLength: 1, maxLength: 300 }) },
      { additionalProperties: false },
    ),
    project: Type.Object({ id: Type.Optional(Uuid), ...REPORT_PROJECT.properties }, { additionalProperties: false }),
    style: Type.Union([LibraryItemRefSchema, Type.Null()]),
    template: Type.Union([LibraryItemRefSchema, Type.Null()]),
    tabs: Type.Array(ReportDocumentTabSchema, { maxItems: 1000 }),
    links: Type.Array(ReportDocumentLinkSchema, { maxItems: 1000 }),
    findings: Type.Array(ReportDocumentFindingSchema, { maxItems: 100_000 }),
    retest: Type.Optional(RetestInfoSchema),
  },
  { additionalProperties: false },
);
export type ReportDocument = Type.Static<typeof ReportDocumentSchema>;

/**
 * A report document with nothing in it but what is given: every report field, the project's and
 * each part's at their empty values. Fixtures, benchmarks and imports start from this and set what
 * they need, so a new field never breaks them.
 */
export function emptyReportDocument(title: string, client: string, project: string): ReportDocument {
  return {
    ...emptyReportFields(title),
    client: { name: client },
    project: { ...REPORT_PROJECT.empty(), name: project },
    style: null,
    template: null,
    tabs: [],
    links: [],
    findings: [],
  };
}

/** A tab of a report document with its title and empty values. */
export function emptyDocumentTab(title: string): ReportDocumentTab {
  return { ...emptyTabFields(title), evidence: [] };
}

/** A link of a report document. */
export function documentLink(title: string, url: string): ReportDocumentLink {
  return { ...LINK.empty(), title, url };
}

/** A finding of a report document with its title and severity and empty values. */
export function emptyDocumentFinding(title: string, severity: Finding['severity']): ReportDocumentFinding {
  return { ...emptyFinding(title, severity), evidence: [] };
}
