import { Type } from 'typebox';
import { LanguageSchema, Timestamp } from '@service/report-model';
import type { Fields } from './field.ts';
import type { ListFilter } from './resource-declaration.ts';

/**
 * What every workspace library item says about its origin: items copied from the global library
 * carry its key and the revision they came from; `edited` is true when you changed one since
 * the last import (an import of a newer library overwrites that edit); `globalRemovedAt` is set
 * when a newer library no longer has the item (it stays in your workspace).
 */
export const libraryFields: Fields = {
  globalKey: {
    column: 'global_key',
    schema: Type.Union([Type.String(), Type.Null()], {
      description: 'Set on items copied from the global library; null for your own.',
    }),
  },
  globalRevision: {
    column: 'global_revision',
    schema: Type.Union([Type.String(), Type.Null()], {
      description: 'The global library revision the item was imported at; null for your own.',
    }),
  },
  edited: {
    column: 'edited',
    schema: Type.Boolean({
      description:
        'True when a global item was changed in this workspace since its import; ' +
        'importing the library again overwrites the change.',
    }),
  },
  globalRemovedAt: {
    column: 'global_removed_at',
    schema: Type.Union([Timestamp, Type.Null()], {
      description: 'When an import found the item no longer in the global library; it stays here.',
    }),
  },
};

/** The language of an item's text. */
export const languageField: Fields = {
  language: { column: 'language', schema: LanguageSchema, create: 'optional', update: true },
};

/** `origin=global|own` and, for items with a language, `language=de`. */
export function libraryFilters(options: { language: boolean }): Record<string, ListFilter> {
  return {
    origin: {
      schema: Type.Enum(['global', 'own']),
      description: '`global`: items from the global library; `own`: items made in this workspace.',
      apply: (q, v: string) => void (v === 'global' ? q.whereNotNull('r.global_key') : q.whereNull('r.global_key')),
    },
    edited: {
      schema: Type.Boolean(),
      description: 'Only global items changed (true) or unchanged (false) since their import.',
      apply: (q, v: boolean) => void q.where('r.edited', v),
    },
    ...(options.language
      ? {
          language: {
            schema: LanguageSchema,
            description: 'Only items in this language.',
            apply: (q, v: string) => void q.where('r.language', v),
          },
        }
      : {}),
  };
}
