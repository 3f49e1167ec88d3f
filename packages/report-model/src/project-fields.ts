import { Type, type Static, type TSchema } from 'typebox';
import { declareFields, type FieldDeclaration } from './declared-fields.ts';
import { PROJECT_STATUSES } from './report.ts';
import { IsoDate, MarkdownText, Title } from './text.ts';

/** What a project field's value is; each path that carries projects handles every shape (see `ReportFieldShape`). */
export type ProjectFieldShape = 'name' | 'projectType' | 'markdown' | 'projectStatus' | 'date';

export interface ProjectFieldDeclaration<
  S extends TSchema = TSchema,
  C extends string = string,
  H extends ProjectFieldShape = ProjectFieldShape,
  D extends boolean = boolean,
> extends FieldDeclaration<S, C, H> {
  /** Reports carry it: `ReportDocument.project`, the Markdown front matter and the documents show it. */
  inReports: D;
}

function field<S extends TSchema, C extends string, H extends ProjectFieldShape, D extends boolean>(
  declaration: ProjectFieldDeclaration<S, C, H, D>,
): ProjectFieldDeclaration<S, C, H, D> {
  return declaration;
}

/**
 * Every field of a project, declared once: the API's project fields and row maps derive from this,
 * and the fields `inReports` are the project of every `ReportDocument` (read with the report, in
 * its Markdown front matter, shown by both DOCX renderers).
 */
export const PROJECT_FIELDS = {
  name: field({
    schema: Title(300),
    column: 'name',
    storage: 'value',
    shape: 'name',
    label: 'Project',
    empty: () => '',
    required: true,
    inReports: true,
  }),
  projectType: field({
    schema: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
    column: 'project_type',
    storage: 'value',
    shape: 'projectType',
    label: 'Project type',
    empty: () => null,
    inReports: false,
  }),
  description: field({
    schema: MarkdownText(100_000),
    column: 'description',
    storage: 'value',
    shape: 'markdown',
    label: 'Description',
    empty: () => '',
    inReports: false,
  }),
  status: field({
    schema: Type.Enum([...PROJECT_STATUSES]),
    column: 'status',
    storage: 'value',
    shape: 'projectStatus',
    label: 'Status',
    empty: () => 'active' as const,
    inReports: false,
  }),
  startDate: field({
    schema: Type.Union([IsoDate, Type.Null()], { description: 'First day of testing.' }),
    column: 'start_date',
    storage: 'value',
    shape: 'date',
    label: 'Start date',
    empty: () => null,
    inReports: true,
  }),
  endDate: field({
    schema: Type.Union([IsoDate, Type.Null()], { description: 'Last day of testing.' }),
    column: 'end_date',
    storage: 'value',
    shape: 'date',
    label: 'End date',
    empty: () => null,
    inReports: true,
  }),
};

type Fields = typeof PROJECT_FIELDS;
export type ProjectFieldName = keyof Fields;
/** The project's fields with what derives from them (schemas, empty values, row maps). */
export const PROJECT = declareFields(PROJECT_FIELDS);
export const ProjectProperties = PROJECT.properties;

/** The project fields a report carries. */
export type ReportProjectFieldName = {
  [K in ProjectFieldName]: Fields[K]['inReports'] extends true ? K : never;
}[ProjectFieldName];
export const REPORT_PROJECT_FIELD_NAMES = PROJECT.entries
  .filter(([, f]) => f.inReports)
  .map(([name]) => name) as readonly ReportProjectFieldName[];
/** The project as a report carries it, with what derives from it. */
export const REPORT_PROJECT = PROJECT.only(REPORT_PROJECT_FIELD_NAMES);
export const ReportProjectFieldsSchema = Type.Object(REPORT_PROJECT.properties, { additionalProperties: false });
export type ReportProjectFields = Static<typeof ReportProjectFieldsSchema>;
