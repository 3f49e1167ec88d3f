import { Type } from 'typebox';
import { Title, Uuid } from '@service/report-model';
import { baseFields } from '../field.ts';
import { languageField, libraryFields, libraryFilters } from '../library-fields.ts';
import { declareResource } from '../resource-declaration.ts';
import { workspaceVisibility } from '../visibility.ts';

const templateRef = (description: string) => ({
  schema: Type.Union([Uuid, Type.Null()], { description }),
  create: 'optional' as const,
  update: true,
});
const Days = Type.Union([Type.Integer({ minimum: 1, maximum: 365 }), Type.Null()]);

export const projectTypesDeclaration = declareResource()({
  name: 'project-types',
  schemaName: 'ProjectType',
  label: 'project type',
  tag: 'Project types',
  description:
    'Kinds of engagement (web application test, internal network, ...) with the ' +
    'report template, retest template and scoping questionnaire they use, typical ' +
    'effort, standards and a checklist. Not visible to external collaborators.',
  table: 'project_types',
  visibility: workspaceVisibility,
  fields: {
    ...baseFields,
    name: { column: 'name', schema: Title(200), create: 'required', update: true },
    description: {
      column: 'description',
      schema: Type.String({ maxLength: 10_000 }),
      create: 'optional',
      update: true,
    },
    reportTemplateId: {
      column: 'report_template_id',
      ...templateRef('The report template of this kind of engagement.'),
      references: { table: 'report_templates', label: 'report template', library: true },
    },
    retestReportTemplateId: {
      column: 'retest_report_template_id',
      ...templateRef('The report template of its retest.'),
      references: { table: 'report_templates', label: 'report template', library: true },
    },
    scopingTemplateId: {
      column: 'scoping_template_id',
      ...templateRef('The scoping questionnaire.'),
      references: { table: 'scoping_templates', label: 'scoping template', library: true },
    },
    estimatedDaysMin: { column: 'estimated_days_min', schema: Days, create: 'optional', update: true },
    estimatedDaysMax: { column: 'estimated_days_max', schema: Days, create: 'optional', update: true },
    standards: {
      column: 'standards',
      schema: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 50, uniqueItems: true }),
      create: 'optional',
      update: true,
    },
    checklist: {
      column: 'checklist',
      schema: Type.Array(Type.String({ minLength: 1, maxLength: 1_000 }), { maxItems: 200, uniqueItems: true }),
      create: 'optional',
      update: true,
    },
    ...languageField,
    ...libraryFields,
  },
  order: [['r.name', 'asc']],
  filters: libraryFilters({ language: true }),
  create: {
    example: { name: 'Web application test', estimatedDaysMin: 5, estimatedDaysMax: 10, standards: ['OWASP WSTG 4.2'] },
  },
});
