import { Type } from 'typebox';
import { FindingProperties } from './finding-fields.ts';
import {
  EvidenceRefSchema,
  ProjectProperties,
  ReportLinkProperties,
  ReportProperties,
  ReportTabProperties,
} from './report.ts';
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
    project: Type.Object(
      {
        id: Type.Optional(Uuid),
        name: ProjectProperties.name,
        startDate: ProjectProperties.startDate,
        endDate: ProjectProperties.endDate,
      },
      { additionalProperties: false },
    ),
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
