import { Type, type Static, type TSchema } from 'typebox';
import { declareFields, type FieldDeclaration } from './declared-fields.ts';
import { FindingOrderSchema, LanguageSchema, ReportStatusSchema } from './report.ts';
import { MarkdownText, Title } from './text.ts';

/**
 * What a report field's value is, as every path that carries a report must know it (API rows,
 * create-from-document, Markdown front matter, both DOCX renderers, retests): each handles every
 * shape in an exhaustive switch, so a field of a known shape travels by itself and a new shape is a
 * compile error wherever it is not handled yet.
 */
export type ReportFieldShape = 'title' | 'reportStatus' | 'language' | 'markdown' | 'findingOrder';

/**
 * What the next round of a retest does with the field of the report it follows: `inherit` copies
 * it, `empty` starts from the field's empty value, `own` is given by the retest itself (its title).
 */
export type RetestInheritance = 'inherit' | 'empty' | 'own';

export interface ReportFieldDeclaration<
  S extends TSchema = TSchema,
  C extends string = string,
  H extends ReportFieldShape = ReportFieldShape,
  R extends RetestInheritance = RetestInheritance,
> extends FieldDeclaration<S, C, H> {
  retest: R;
}

function field<S extends TSchema, C extends string, H extends ReportFieldShape, R extends RetestInheritance>(
  declaration: ReportFieldDeclaration<S, C, H, R>,
): ReportFieldDeclaration<S, C, H, R> {
  return declaration;
}

/**
 * Every field of a report, declared once, in the order files and documents show them. The API's
 * report fields, the row maps, `ReportDocument`, creating a report from a document, the Markdown
 * front matter, both DOCX renderers and the next round of a retest derive from this: add a field
 * here (and its column in a tenant migration) and the compiler and `report-fields.test.ts` point at
 * whatever is left to decide.
 */
export const REPORT_FIELDS = {
  title: field({
    schema: Title(),
    column: 'title',
    storage: 'value',
    shape: 'title',
    label: 'Title',
    empty: () => '',
    required: true,
    retest: 'own',
  }),
  status: field({
    schema: ReportStatusSchema,
    column: 'status',
    storage: 'value',
    shape: 'reportStatus',
    label: 'Report status',
    empty: () => 'draft' as const,
    retest: 'empty',
  }),
  language: field({
    schema: LanguageSchema,
    column: 'language',
    storage: 'value',
    shape: 'language',
    label: 'Language',
    empty: () => 'en',
    retest: 'inherit',
  }),
  summary: field({
    schema: MarkdownText(),
    column: 'summary',
    storage: 'value',
    shape: 'markdown',
    label: 'Summary',
    empty: () => '',
    retest: 'empty',
  }),
  findingOrder: field({
    schema: FindingOrderSchema,
    column: 'finding_order',
    storage: 'value',
    shape: 'findingOrder',
    label: 'Finding order',
    empty: () => 'severity' as const,
    retest: 'inherit',
  }),
};

type Fields = typeof REPORT_FIELDS;
export type ReportFieldName = keyof Fields;
/** The report's fields with what derives from them (schemas, empty values, row maps). */
export const REPORT = declareFields(REPORT_FIELDS);
export const REPORT_FIELD_NAMES: readonly ReportFieldName[] = REPORT.names;
export const ReportProperties = REPORT.properties;
export const ReportFieldsSchema = Type.Object(ReportProperties, { additionalProperties: false });
/** A report's own values: what it holds besides its client, project, tabs, links and findings. */
export type ReportFields = Static<typeof ReportFieldsSchema>;
export type ReportColumnName = Fields[ReportFieldName]['column'];
/** Report fields whose value is Markdown text: each is a section of the document. */
export type ReportMarkdownFieldName = {
  [K in ReportFieldName]: Fields[K]['shape'] extends 'markdown' ? K : never;
}[ReportFieldName];
export const REPORT_MARKDOWN_FIELDS = REPORT.entries
  .filter(([, f]) => f.shape === 'markdown')
  .map(([name, f]) => ({ name: name as ReportMarkdownFieldName, label: f.label }));

/** The fields a retest is given itself rather than taking them from the round before. */
export type RetestOwnFieldName = {
  [K in ReportFieldName]: Fields[K]['retest'] extends 'own' ? K : never;
}[ReportFieldName];

/** An empty report's values; fixtures and imports start from these. */
export function emptyReportFields(title: string): ReportFields {
  return { ...REPORT.empty(), title };
}

/**
 * The fields of the next round of a retest: what it inherits from the round before, empty values
 * where it starts afresh, and what the retest gives itself (`own`).
 */
export function retestReportFields(before: ReportFields, own: Pick<ReportFields, RetestOwnFieldName>): ReportFields {
  const values: Record<string, unknown> = {};
  for (const [name, f] of REPORT.entries as ReadonlyArray<readonly [ReportFieldName, ReportFieldDeclaration]>) {
    switch (f.retest) {
      case 'inherit':
        values[name] = before[name];
        break;
      case 'empty':
        values[name] = f.empty();
        break;
      case 'own':
        values[name] = own[name as RetestOwnFieldName];
        break;
      default:
        return f.retest satisfies never;
    }
  }
  return values as ReportFields;
}
