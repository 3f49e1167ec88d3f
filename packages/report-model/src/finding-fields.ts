import { Type, type Static, type TSchema } from 'typebox';
import { declareFields, type FieldDeclaration } from './declared-fields.ts';
import { AffectedAssetListSchema } from './affected-asset.ts';
import { CvssSchema } from './cvss.ts';
import { SeveritySchema } from './severity.ts';
import { SEVERITY_BAND_RULE } from './severity-coherence.ts';
import { MarkdownText, TEXT_LIMITS, Title, Uuid } from './text.ts';

export const CveIdSchema = Type.String({
  pattern: '^CVE-\\d{4}-\\d{4,}$',
  maxLength: 30,
  description: 'CVE-YYYY-NNNN...',
});
export const CweIdSchema = Type.Integer({ minimum: 1, maximum: 100_000, description: 'CWE number (79 for CWE-79).' });

export const FINDING_STATUSES = ['open', 'resolved', 'accepted-risk', 'false-positive'] as const;
export const FindingStatusSchema = Type.Enum([...FINDING_STATUSES]);
export type FindingStatus = (typeof FINDING_STATUSES)[number];

export const FINDING_SOURCE_KINDS = ['manual', 'template', 'scanner'] as const;

/** Where a finding came from: typed by hand, from a library template, or from a scanner rule. */
export const FindingSourceSchema = Type.Object(
  {
    kind: Type.Enum([...FINDING_SOURCE_KINDS]),
    templateKey: Type.Optional(
      Type.String({ maxLength: 300, description: 'Global library key of the template it came from.' }),
    ),
    templateId: Type.Optional(Uuid),
    scanner: Type.Optional(Type.String({ maxLength: 50 })),
    scannerVersion: Type.Optional(Type.String({ maxLength: 100 })),
    ruleId: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type FindingSource = Static<typeof FindingSourceSchema>;

/** Where a finding came from, as one line: `nessus:57608`, `template:smb-signing-not-required` or `manual`. */
export function describeFindingSource(s: FindingSource): string {
  if (s.kind === 'scanner') return `${s.scanner ?? 'scanner'}:${s.ruleId ?? ''}`;
  if (s.kind === 'template') return `template:${s.templateKey ?? s.templateId ?? ''}`;
  return 'manual';
}

/**
 * What a field's value is, as every path that carries a finding must know it: each path (API
 * rows, Markdown, CSV, DOCX, scanner import, templates) handles every shape in an exhaustive
 * switch, so a field of a known shape travels everywhere by itself, and a new shape is a compile
 * error in each path until it is handled there.
 */
export type FindingFieldShape =
  | 'title'
  | 'severity'
  | 'status'
  | 'cvss'
  | 'cveList'
  | 'cweList'
  | 'markdown'
  | 'referenceList'
  | 'assets'
  | 'source'
  | 'note';

/** `content` is the text a finding shares with finding templates; `state` is the finding's own. */
export type FindingFieldPart = 'content' | 'state';

/** A field of a finding: its declaration, and whether findings share it with finding templates. */
export interface FindingFieldDeclaration<
  S extends TSchema = TSchema,
  P extends FindingFieldPart = FindingFieldPart,
  C extends string = string,
  H extends FindingFieldShape = FindingFieldShape,
> extends FieldDeclaration<S, C, H> {
  part: P;
}

function field<S extends TSchema, P extends FindingFieldPart, C extends string, H extends FindingFieldShape>(
  declaration: FindingFieldDeclaration<S, P, C, H>,
): FindingFieldDeclaration<S, P, C, H> {
  return declaration;
}

const markdownField = <C extends string>(column: C, label: string) =>
  field({
    schema: MarkdownText(),
    column,
    storage: 'value',
    part: 'content',
    shape: 'markdown',
    label,
    empty: () => '',
  });

/**
 * Every field of a finding, declared once, in the order documents show them. The finding's
 * schema, its columns, the row maps, the API fields, the Markdown keys and sections, the CSV
 * columns and the DOCX tags all derive from this: add a field here (and its column in a tenant
 * migration) and it appears in each of them.
 */
export const FINDING_FIELDS = {
  title: field({
    schema: Title(),
    column: 'title',
    storage: 'value',
    part: 'content',
    shape: 'title',
    label: 'Title',
    empty: () => '',
    required: true,
  }),
  severity: field({
    schema: SeveritySchema,
    column: 'severity',
    storage: 'value',
    part: 'content',
    shape: 'severity',
    label: 'Severity',
    empty: () => 'info' as const,
    required: true,
  }),
  status: field({
    schema: FindingStatusSchema,
    column: 'status',
    storage: 'value',
    part: 'state',
    shape: 'status',
    label: 'Status',
    empty: () => 'open' as const,
  }),
  cvss: field({
    schema: Type.Array(CvssSchema, { maxItems: TEXT_LIMITS.cvssEntries }),
    column: 'cvss',
    storage: 'jsonb',
    part: 'content',
    shape: 'cvss',
    label: 'CVSS',
    empty: () => [],
  }),
  severityReason: field({
    schema: Type.String({
      maxLength: 2_000,
      description:
        "Why the severity differs from the CVSS score's band; required when it does (set by imports from the " +
        `scanner's own rating). ${SEVERITY_BAND_RULE}`,
    }),
    column: 'severity_reason',
    storage: 'value',
    part: 'state',
    shape: 'note',
    label: 'Severity reason',
    empty: () => '',
  }),
  cves: field({
    schema: Type.Array(CveIdSchema, { maxItems: TEXT_LIMITS.cves, uniqueItems: true }),
    column: 'cves',
    storage: 'value',
    part: 'content',
    shape: 'cveList',
    label: 'CVEs',
    empty: () => [],
  }),
  cwes: field({
    schema: Type.Array(CweIdSchema, { maxItems: TEXT_LIMITS.cwes, uniqueItems: true }),
    column: 'cwes',
    storage: 'value',
    part: 'content',
    shape: 'cweList',
    label: 'CWEs',
    empty: () => [],
  }),
  affectedAssets: field({
    schema: AffectedAssetListSchema,
    column: 'affected_assets',
    storage: 'jsonb',
    part: 'state',
    shape: 'assets',
    label: 'Affected assets',
    empty: () => [],
  }),
  description: markdownField('description', 'Description'),
  impact: markdownField('impact', 'Impact'),
  remediation: markdownField('remediation', 'Remediation'),
  details: field({
    schema: MarkdownText(
      TEXT_LIMITS.markdown,
      'Markdown: what the scanner reported beyond the description, such as the table of checks of a compliance audit.',
    ),
    column: 'details',
    storage: 'value',
    part: 'state',
    shape: 'markdown',
    label: 'Details',
    empty: () => '',
  }),
  references: field({
    schema: Type.Array(Type.String({ maxLength: TEXT_LIMITS.reference }), { maxItems: TEXT_LIMITS.references }),
    column: 'references',
    storage: 'value',
    part: 'content',
    shape: 'referenceList',
    label: 'References',
    empty: () => [],
  }),
  source: field({
    schema: FindingSourceSchema,
    column: 'source',
    storage: 'jsonb',
    part: 'state',
    shape: 'source',
    label: 'Source',
    empty: () => ({ kind: 'manual' as const }),
    immutable: true,
  }),
};

type Fields = typeof FINDING_FIELDS;
export type FindingFieldName = keyof Fields;
export type FindingContentFieldName = {
  [K in FindingFieldName]: Fields[K]['part'] extends 'content' ? K : never;
}[FindingFieldName];
/** Fields whose value is Markdown text: each is a section of the finding in every document. */
export type FindingMarkdownFieldName = {
  [K in FindingFieldName]: Fields[K]['shape'] extends 'markdown' ? K : never;
}[FindingFieldName];

/** The finding's fields with what derives from them (schemas, empty values, row maps). */
export const FINDING = declareFields(FINDING_FIELDS);
const ENTRIES = FINDING.entries as ReadonlyArray<readonly [FindingFieldName, FindingFieldDeclaration]>;

/** Every field name, in declaration order. */
export const FINDING_FIELD_NAMES: readonly FindingFieldName[] = FINDING.names;
export const FINDING_CONTENT_FIELD_NAMES = ENTRIES.filter(([, f]) => f.part === 'content').map(
  ([name]) => name,
) as readonly FindingContentFieldName[];
/** The content a finding shares with finding templates, with what derives from it. */
export const FINDING_CONTENT = FINDING.only(FINDING_CONTENT_FIELD_NAMES);
/** The Markdown text fields, in order, with their headings. */
export const FINDING_MARKDOWN_FIELDS = ENTRIES.filter(([, f]) => f.shape === 'markdown').map(([name, f]) => ({
  name: name as FindingMarkdownFieldName,
  label: f.label,
  part: f.part,
}));
/** The text of a finding template that translations carry: its title and its Markdown sections. */
export type FindingTranslatableFieldName = {
  [K in FindingContentFieldName]: Fields[K]['shape'] extends 'title' | 'markdown' ? K : never;
}[FindingContentFieldName];
export const FINDING_TRANSLATABLE_FIELD_NAMES = ENTRIES.filter(
  ([, f]) => f.part === 'content' && (f.shape === 'title' || f.shape === 'markdown'),
).map(([name]) => name) as readonly FindingTranslatableFieldName[];

/** The content a finding and a finding template share, property by property. */
export const FindingContentProperties = FINDING_CONTENT.properties;
export const FindingContentSchema = Type.Object(FindingContentProperties, { additionalProperties: false });
export type FindingContent = Static<typeof FindingContentSchema>;

/** Every property of a finding, in declaration order. */
export const FindingProperties = FINDING.properties;
export const FindingSchema = Type.Object(FindingProperties, { additionalProperties: false });
export type Finding = Static<typeof FindingSchema>;

/** A finding template's text in one other language: any of its translatable fields. */
export const FindingTranslationSchema = Type.Object(
  Object.fromEntries(FINDING_TRANSLATABLE_FIELD_NAMES.map((n) => [n, Type.Optional(FINDING_FIELDS[n].schema)])) as {
    [K in FindingTranslatableFieldName]: ReturnType<typeof Type.Optional<Fields[K]['schema']>>;
  },
  { additionalProperties: false },
);
export type FindingTranslation = Static<typeof FindingTranslationSchema>;

/** An empty finding's values; imports, the Markdown reader and fixtures start from these. */
export function emptyFinding(title: string, severity: Finding['severity']): Finding {
  return { ...FINDING.empty(), title, severity };
}

/** The content of a finding: its shared fields only. */
export function findingContentOf(finding: FindingContent): FindingContent {
  return FINDING_CONTENT.pick(finding);
}

// ---- Columns and rows -------------------------------------------------------------------------

export type FindingColumnName = Fields[FindingFieldName]['column'];
/** A `findings` row's field columns as the database driver reads them (jsonb parsed, arrays as arrays). */
export type FindingColumns = { [K in FindingFieldName as Fields[K]['column']]: Static<Fields[K]['schema']> };
/** The content columns a `findings` row and a `finding_templates` row share. */
export type FindingContentColumns = {
  [K in FindingContentFieldName as Fields[K]['column']]: Static<Fields[K]['schema']>;
};

export const FINDING_COLUMNS: readonly FindingColumnName[] = FINDING.columns;
export const FINDING_CONTENT_COLUMNS: readonly FindingColumnName[] = FINDING_CONTENT.columns;

/** Column values to insert or update for the fields given (see `DeclaredFields.toColumns`). */
export function findingFieldsToColumns(
  values: Partial<Finding>,
  options: { jsonb?: 'text' | 'value' } = {},
): Partial<Record<FindingColumnName, unknown>> {
  return FINDING.toColumns(values, options);
}

/** A whole finding read from its row. */
export function findingFromColumns(row: FindingColumns): Finding {
  return FINDING.fromColumns(row);
}

/** A finding's (or a template's) content read from its row. */
export function findingContentFromColumns(row: FindingContentColumns): FindingContent {
  return FINDING_CONTENT.fromColumns(row);
}

/** The declaration of one field (its column, shape, label...). */
export function findingField(name: FindingFieldName): FindingFieldDeclaration {
  return FINDING_FIELDS[name];
}
