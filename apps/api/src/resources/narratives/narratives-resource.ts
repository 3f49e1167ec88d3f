import { Type } from 'typebox';
import { NARRATIVE_CATEGORIES } from '@service/library';
import { MarkdownText, TEXT_LIMITS, Title } from '@service/report-model';
import { baseFields } from '../field.ts';
import { languageField, libraryFields, libraryFilters } from '../library-fields.ts';
import { declareResource } from '../resource-declaration.ts';
import { workspaceVisibility } from '../visibility.ts';

const Category = Type.Enum([...NARRATIVE_CATEGORIES]);

export const narrativesDeclaration = declareResource()({
  name: 'narratives',
  schemaName: 'Narrative',
  label: 'narrative',
  tag: 'Narratives',
  description:
    'Reusable report text (executive summary, methodology, scope, disclaimer, ...) ' +
    "that report templates put into new reports' tabs. Not visible to external " +
    'collaborators.',
  table: 'narratives',
  visibility: workspaceVisibility,
  fields: {
    ...baseFields,
    title: { column: 'title', schema: Title(300), create: 'required', update: true },
    category: { column: 'category', schema: Category, create: 'optional', update: true },
    description: { column: 'description', schema: Type.String({ maxLength: 1_000 }), create: 'optional', update: true },
    content: { column: 'content', schema: MarkdownText(TEXT_LIMITS.tabContent), create: 'optional', update: true },
    ...languageField,
    ...libraryFields,
  },
  order: [
    ['r.category', 'asc'],
    ['r.title', 'asc'],
  ],
  filters: {
    category: {
      schema: Category,
      description: 'Only narratives of this category.',
      apply: (q, v: string) => void q.where('r.category', v),
    },
    ...libraryFilters({ language: true }),
  },
  create: {
    example: {
      title: 'Methodology',
      category: 'methodology',
      content: 'We followed the OWASP Web Security Testing Guide...',
    },
  },
});
