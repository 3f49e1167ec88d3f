import { Type } from 'typebox';
import {
  ReportTabProperties,
  LanguageSchema,
  MarkdownText,
  ReportStyleSchema,
  TEXT_LIMITS,
  Title,
} from '@service/report-model';
import { QUESTION_TYPES } from './library-item.ts';

/**
 * The schemas of the library's YAML files and front matter. `key` is checked on its own (it must
 * equal the file name), so here it is only text. Every object refuses unknown keys: a typo such
 * as `sytle:` must fail the check, not vanish.
 */

// Why unknown: `key` is checked by checkItemKey, which names the file; the schema would only repeat it.
const Key = Type.Optional(Type.Unknown());
const KeyRef = Type.String({ minLength: 1, maxLength: 200 });
const Description = Type.String({ maxLength: 10_000 });
const strict = { additionalProperties: false } as const;

export const NARRATIVE_CATEGORIES = [
  'executive-summary',
  'scope',
  'methodology',
  'risk-rating',
  'rules-of-engagement',
  'disclaimer',
  'confidentiality',
  'retest',
  'tools',
  'glossary',
  'appendix',
  'other',
] as const;

export const NarrativeFrontSchema = Type.Object(
  {
    key: Key,
    title: Title(300),
    category: Type.Enum([...NARRATIVE_CATEGORIES]),
    description: Type.Optional(Type.String({ maxLength: 1_000 })),
    language: Type.Optional(LanguageSchema),
  },
  strict,
);

export const ReportStyleFileSchema = Type.Object(
  {
    key: Key,
    ...ReportStyleSchema.properties,
    wordTemplate: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*\\.docx$',
        maxLength: 200,
        description: 'A .docx file in library/report-styles/.',
      }),
    ),
  },
  strict,
);

export const ReportTemplateFileSchema = Type.Object(
  {
    key: Key,
    name: Title(200),
    description: Type.Optional(Description),
    language: Type.Optional(LanguageSchema),
    style: Type.Optional(KeyRef),
    tabs: Type.Array(
      Type.Object(
        {
          title: Title(300),
          narrative: Type.Optional(KeyRef),
          content: Type.Optional(MarkdownText(TEXT_LIMITS.tabContent)),
          placement: Type.Optional(ReportTabProperties.placement),
        },
        strict,
      ),
      { minItems: 1, maxItems: 100 },
    ),
  },
  strict,
);

const QuestionId = Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 100 });

/** One section of a scoping questionnaire: the workspace copy and the API use this shape too. */
export const ScopingSectionSchema = Type.Object(
  {
    title: Title(300),
    description: Type.Optional(Type.String({ maxLength: 5_000 })),
    questions: Type.Array(
      Type.Object(
        {
          id: QuestionId,
          text: Type.String({ minLength: 1, maxLength: 2_000 }),
          type: Type.Enum([...QUESTION_TYPES]),
          help: Type.Optional(Type.String({ maxLength: 5_000 })),
          required: Type.Optional(Type.Boolean()),
          options: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
              minItems: 2,
              maxItems: 100,
              uniqueItems: true,
            }),
          ),
        },
        strict,
      ),
      { minItems: 1, maxItems: 200 },
    ),
  },
  strict,
);

export const ScopingTemplateFileSchema = Type.Object(
  {
    key: Key,
    name: Title(200),
    description: Type.Optional(Description),
    language: Type.Optional(LanguageSchema),
    sections: Type.Array(ScopingSectionSchema, { minItems: 1, maxItems: 50 }),
  },
  strict,
);

export const ProjectTypeFileSchema = Type.Object(
  {
    key: Key,
    name: Title(200),
    description: Type.Optional(Description),
    language: Type.Optional(LanguageSchema),
    reportTemplate: KeyRef,
    retestReportTemplate: Type.Optional(KeyRef),
    scopingTemplate: Type.Optional(KeyRef),
    estimatedDays: Type.Optional(
      Type.Object(
        { min: Type.Integer({ minimum: 1, maximum: 365 }), max: Type.Integer({ minimum: 1, maximum: 365 }) },
        strict,
      ),
    ),
    standards: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 50, uniqueItems: true }),
    ),
    checklist: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1_000 }), { maxItems: 200, uniqueItems: true }),
    ),
  },
  strict,
);
