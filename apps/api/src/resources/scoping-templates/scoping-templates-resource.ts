import { Type } from 'typebox';
import { ScopingSectionSchema } from '@service/library';
import { Title } from '@service/report-model';
import { baseFields } from '../field.ts';
import { languageField, libraryFields, libraryFilters } from '../library-fields.ts';
import { declareResource } from '../resource-declaration.ts';
import { workspaceVisibility } from '../visibility.ts';

export const scopingTemplatesDeclaration = declareResource()({
  name: 'scoping-templates',
  schemaName: 'ScopingTemplate',
  label: 'scoping template',
  tag: 'Scoping templates',
  description:
    'Questionnaires a consultant sends before a test (targets, windows, contacts, ' +
    'constraints), in sections of questions. Not visible to external collaborators.',
  table: 'scoping_templates',
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
    sections: {
      column: 'sections',
      schema: Type.Array(ScopingSectionSchema, { maxItems: 50 }),
      create: 'optional',
      update: true,
      json: true,
    },
    ...languageField,
    ...libraryFields,
  },
  order: [['r.name', 'asc']],
  filters: libraryFilters({ language: true }),
  create: {
    example: {
      name: 'Web application',
      sections: [
        {
          title: 'Targets',
          questions: [{ id: 'urls', text: 'Which URLs are in scope?', type: 'text', required: true }],
        },
      ],
    },
  },
});
