import { Type } from 'typebox';
import { ReportStyleProperties, type ReportStyle } from '@service/report-model';
import { baseFields } from '../field.ts';
import { libraryFields, libraryFilters } from '../library-fields.ts';
import { declareResource, type Row } from '../resource-declaration.ts';
import { workspaceVisibility } from '../visibility.ts';

/** What a style row reads besides its fields: where its Word template is stored. */
interface StyleColumns {
  template_storage_key: string | null;
  /** The Word template's version: the export's validator names it without reading the file. */
  template_sha256: string | null;
}

export const styleLibraryDeclaration = declareResource<StyleColumns>()({
  name: 'style-library',
  schemaName: 'ReportStyle',
  label: 'report style',
  tag: 'Style library',
  description:
    'Report styles used by the DOCX export: fonts, colours, severity colours, cover ' +
    'page, header and footer text, logo. Not visible to external collaborators.',
  table: 'report_styles',
  visibility: workspaceVisibility,
  fields: {
    ...baseFields,
    name: { column: 'name', schema: ReportStyleProperties.name, create: 'required', update: true },
    description: { column: 'description', schema: ReportStyleProperties.description, create: 'optional', update: true },
    fonts: { column: 'fonts', schema: ReportStyleProperties.fonts, create: 'optional', update: true, json: true },
    colors: { column: 'colors', schema: ReportStyleProperties.colors, create: 'optional', update: true, json: true },
    severityColors: {
      column: 'severity_colors',
      schema: ReportStyleProperties.severityColors,
      create: 'optional',
      update: true,
      json: true,
    },
    coverPage: {
      column: 'cover_page',
      schema: ReportStyleProperties.coverPage,
      create: 'optional',
      update: true,
      json: true,
    },
    headerText: { column: 'header_text', schema: ReportStyleProperties.headerText, create: 'optional', update: true },
    footerText: { column: 'footer_text', schema: ReportStyleProperties.footerText, create: 'optional', update: true },
    pageSize: { column: 'page_size', schema: ReportStyleProperties.pageSize, create: 'optional', update: true },
    evidenceMode: {
      column: 'evidence_mode',
      schema: ReportStyleProperties.evidenceMode,
      create: 'optional',
      update: true,
    },
    logoImageId: {
      column: 'logo_image_id',
      schema: ReportStyleProperties.logoImageId,
      create: 'optional',
      update: true,
      references: { table: 'evidence_images', label: 'evidence image' },
    },
    wordTemplate: {
      column: '_word_template',
      schema: Type.Union(
        [
          Type.Object({
            fileName: Type.String(),
            sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
            size: Type.Integer(),
          }),
          Type.Null(),
        ],
        {
          description:
            'The Word template the DOCX export fills for reports with this style ' +
            '(PUT/GET/DELETE `/style-library/{id}/word-template`); null: our own layout.',
        },
      ),
      read: (v) => v ?? null,
    },
    ...libraryFields,
  },
  internalColumns: ['template_storage_key', 'template_sha256'],
  extraSelect: (db) => [
    db.raw(
      "case when r.template_sha256 is null then null else json_build_object('fileName', " +
        "r.template_file_name, 'sha256', r.template_sha256, 'size', r.template_size) end " +
        'as _word_template',
    ),
  ],
  filters: libraryFilters({ language: false }),
  order: [['r.name', 'asc']],
  create: {
    example: {
      name: 'Corporate blue',
      fonts: { heading: 'Calibri', body: 'Calibri' },
      colors: { primary: '#1F4E79' },
      severityColors: { critical: '#7B0000', high: '#C00000' },
    },
  },
});

/** A style row as the report model's style, for the DOCX export. */
export function reportStyleOfRow(row: Row<(typeof styleLibraryDeclaration)['fields'], StyleColumns>): ReportStyle {
  return {
    name: row.name,
    description: row.description,
    fonts: row.fonts,
    colors: row.colors,
    severityColors: row.severity_colors,
    coverPage: row.cover_page,
    headerText: row.header_text,
    footerText: row.footer_text,
    pageSize: row.page_size,
    evidenceMode: row.evidence_mode,
  };
}
