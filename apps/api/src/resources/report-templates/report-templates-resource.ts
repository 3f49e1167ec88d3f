import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { defineResource } from '../define-resource.ts';
import { baseFields } from '../field.ts';
import { globalFields } from '../finding-library/finding-library-resource.ts';
import { workspaceVisibility } from '../visibility.ts';

export function registerReportTemplates(app: AppContext) {
  return defineResource(app, {
    name: 'report-templates',
    schemaName: 'ReportTemplate',
    label: 'report template',
    tag: 'Report templates',
    description: 'Report templates: a report created with `templateId` gets the template\'s tabs.',
    table: 'report_templates',
    visibility: workspaceVisibility,
    searchable: false,
    fields: {
      ...baseFields,
      name: { column: 'name', schema: Type.String({ minLength: 1, maxLength: 200 }), create: 'required', update: true },
      description: { column: 'description', schema: Type.String({ maxLength: 10_000 }), create: 'optional', update: true },
      tabs: {
        column: 'tabs',
        schema: Type.Array(Type.Object({ title: Type.String({ minLength: 1, maxLength: 300 }), content: Type.Optional(Type.String({ maxLength: 2_000_000 })) }, { additionalProperties: false }), { maxItems: 100 }),
        create: 'optional',
        update: true,
        json: true,
      },
      ...globalFields,
    },
    order: [['r.name', 'asc']],
    create: { example: { name: 'Web application test', tabs: [{ title: 'Executive summary' }, { title: 'Scope' }, { title: 'Methodology' }] } },
  });
}
