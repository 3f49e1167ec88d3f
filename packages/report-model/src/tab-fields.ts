import { Type, type Static, type TSchema } from 'typebox';
import { declareFields, type FieldDeclaration } from './declared-fields.ts';
import { TAB_PLACEMENTS } from './report.ts';
import { MarkdownText, TEXT_LIMITS, Title } from './text.ts';

/** What a tab field's value is; each path that carries tabs handles every shape (see `ReportFieldShape`). */
export type TabFieldShape = 'title' | 'markdown' | 'placement';

export type TabFieldDeclaration<
  S extends TSchema = TSchema,
  C extends string = string,
  H extends TabFieldShape = TabFieldShape,
> = FieldDeclaration<S, C, H>;

function field<S extends TSchema, C extends string, H extends TabFieldShape>(
  declaration: TabFieldDeclaration<S, C, H>,
): TabFieldDeclaration<S, C, H> {
  return declaration;
}

/**
 * Every field of a report tab (a section of text before or after the findings), declared once: the
 * API's tab fields, the row maps, the tabs of `ReportDocument` and of report templates, the
 * Markdown file's tabs and both DOCX renderers derive from this.
 */
export const TAB_FIELDS = {
  title: field({
    schema: Title(300),
    column: 'title',
    storage: 'value',
    shape: 'title',
    label: 'Title',
    empty: () => '',
    required: true,
  }),
  content: field({
    schema: MarkdownText(TEXT_LIMITS.tabContent),
    column: 'content',
    storage: 'value',
    shape: 'markdown',
    label: 'Content',
    empty: () => '',
  }),
  placement: field({
    schema: Type.Enum([...TAB_PLACEMENTS], {
      description: 'Whether the section comes before the findings (summary, scope) or after them (appendices).',
    }),
    column: 'placement',
    storage: 'value',
    shape: 'placement',
    label: 'Placement',
    empty: () => 'before' as const,
  }),
};

export type TabFieldName = keyof typeof TAB_FIELDS;
/** The tab's fields with what derives from them (schemas, empty values, row maps). */
export const TAB = declareFields(TAB_FIELDS);
export const ReportTabProperties = TAB.properties;
export const TabFieldsSchema = Type.Object(ReportTabProperties, { additionalProperties: false });
export type TabFields = Static<typeof TabFieldsSchema>;

/** Tab fields whose value is Markdown text (its content). */
export type TabMarkdownFieldName = {
  [K in TabFieldName]: (typeof TAB_FIELDS)[K]['shape'] extends 'markdown' ? K : never;
}[TabFieldName];
export const TAB_MARKDOWN_FIELD_NAMES = TAB.entries
  .filter(([, f]) => f.shape === 'markdown')
  .map(([name]) => name) as readonly TabMarkdownFieldName[];

/** An empty tab's values. */
export function emptyTabFields(title: string): TabFields {
  return { ...TAB.empty(), title };
}

/**
 * A report template's tab: the tabs a new report starts with. Only the title is needed; every other
 * field takes its empty value.
 */
export const ReportTemplateTabSchema = Type.Object(
  Object.fromEntries(TAB.entries.map(([name, f]) => [name, f.required ? f.schema : Type.Optional(f.schema)])) as {
    title: typeof TAB_FIELDS.title.schema;
  } & {
    [K in Exclude<TabFieldName, 'title'>]: ReturnType<typeof Type.Optional<(typeof TAB_FIELDS)[K]['schema']>>;
  },
  { additionalProperties: false },
);
export type ReportTemplateTab = Static<typeof ReportTemplateTabSchema>;

/** The fields of a tab made from a report template's tab: what it leaves out takes the empty value. */
export function tabOfTemplate(tab: ReportTemplateTab): TabFields {
  return { ...TAB.empty(), ...Object.fromEntries(Object.entries(tab).filter(([, v]) => v !== undefined)) } as TabFields;
}
