import { Type } from 'typebox';
import { ReportStyleProperties } from '@service/report-model';
import { baseFields } from '../field.ts';
import { libraryFields, libraryFilters } from '../library-fields.ts';
import type { ResourceDeclaration } from '../resource-declaration.ts';
import { workspaceVisibility } from '../visibility.ts';

export const styleLibraryDeclaration: ResourceDeclaration = {
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
  internalColumns: ['template_storage_key'],
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
};
