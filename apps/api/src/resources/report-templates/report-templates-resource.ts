import { Type } from 'typebox';
import { ReportTemplateTabSchema, Uuid } from '@service/report-model';
import { baseFields } from '../field.ts';
import { languageField, libraryFields, libraryFilters } from '../library-fields.ts';
import { declareResource } from '../resource-declaration.ts';
import { workspaceVisibility } from '../visibility.ts';

export const reportTemplatesDeclaration = declareResource()({
  name: 'report-templates',
  schemaName: 'ReportTemplate',
  label: 'report template',
  tag: 'Report templates',
  description:
    "Report templates: a report created with `templateId` gets the template's tabs. " +
    'Not visible to external collaborators.',
  table: 'report_templates',
  visibility: workspaceVisibility,
  searchable: false,
  fields: {
    ...baseFields,
    name: { column: 'name', schema: Type.String({ minLength: 1, maxLength: 200 }), create: 'required', update: true },
    description: {
      column: 'description',
      schema: Type.String({ maxLength: 10_000 }),
      create: 'optional',
      update: true,
    },
    tabs: {
      column: 'tabs',
      schema: Type.Array(ReportTemplateTabSchema, { maxItems: 100 }),
      create: 'optional',
      update: true,
      json: true,
    },
    styleId: {
      column: 'style_id',
      schema: Type.Union([Uuid, Type.Null()], { description: 'The style reports made from this template start with.' }),
      create: 'optional',
      update: true,
      references: { table: 'report_styles', label: 'report style', library: true },
    },
    ...languageField,
    ...libraryFields,
  },
  filters: libraryFilters({ language: true }),
  order: [['r.name', 'asc']],
  create: {
    example: {
      name: 'Web application test',
      tabs: [{ title: 'Executive summary' }, { title: 'Scope' }, { title: 'Methodology' }],
    },
  },
});
