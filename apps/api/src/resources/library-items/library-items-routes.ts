import type { Knex } from 'knex';
import { Type } from 'typebox';
import { PAGINATION_HEADERS, PaginationQuery, setPaginationHeaders, toPage } from '@service/http';
import { LanguageSchema, Timestamp, Uuid } from '@service/report-model';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import { assertAllowed, WORKSPACE_WIDE } from '../access.ts';
import { selectPage } from '../select-page.ts';

/** The six library kinds of SPEC, with the table, the name column and the REST path of each. */
const KINDS = {
  'finding-template': { table: 'finding_templates', name: 'title', path: 'finding-library', language: true },
  'report-template': { table: 'report_templates', name: 'name', path: 'report-templates', language: true },
  'report-style': { table: 'report_styles', name: 'name', path: 'style-library', language: false },
  narrative: { table: 'narratives', name: 'title', path: 'narratives', language: true },
  'scoping-template': { table: 'scoping_templates', name: 'name', path: 'scoping-templates', language: true },
  'project-type': { table: 'project_types', name: 'name', path: 'project-types', language: true },
} as const;
type Kind = keyof typeof KINDS;

/** A row of the union of every library table, as the listing reads it. */
interface LibraryItemRow {
  kind: Kind;
  id: string;
  name: string;
  language: string | null;
  global_key: string | null;
  global_revision: string | null;
  edited: boolean | null;
  global_removed_at: Date | null;
  updated_at: Date;
}
const KIND_NAMES = Object.keys(KINDS) as Kind[];

const LibraryItem = Type.Object({
  kind: Type.Enum(KIND_NAMES),
  id: Uuid,
  name: Type.String(),
  language: Type.Union([LanguageSchema, Type.Null()]),
  globalKey: Type.Union([Type.String(), Type.Null()]),
  globalRevision: Type.Union([Type.String(), Type.Null()]),
  edited: Type.Boolean(),
  globalRemovedAt: Type.Union([Timestamp, Type.Null()]),
  updatedAt: Timestamp,
  href: Type.String({ description: 'The item under its own resource, e.g. `/rest/v1/finding-library/{id}`.' }),
});

/**
 * `GET /rest/v1/library`: every library item of the workspace across the six kinds, global and
 * own, in one list, filterable by kind, language and origin. Each kind keeps its own resource
 * for reading and changing the whole item.
 */
export function registerLibraryItems(app: AppContext): void {
  app.registry.addTag(
    'Library',
    'All library items of the workspace: finding templates, report templates, report ' +
      'styles, narratives, scoping templates and project types.',
  );
  app.registry.addSchema('LibraryItem', LibraryItem);
  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/library',
    operationId: 'listLibraryItems',
    summary: 'List library items of every kind',
    description:
      "Global items (copied from the release's global library: `globalKey` and " +
      '`globalRevision` set, `edited` when changed here since the import, ' +
      '`globalRemovedAt` when a newer library dropped them) and your own (`globalKey` ' +
      'null), sorted by kind and name. Not visible to external collaborators.',
    tags: ['Library'],
    query: Type.Object({
      ...PaginationQuery,
      kind: Type.Optional(Type.Enum(KIND_NAMES, { description: 'Only items of this kind.' })),
      language: Type.Optional({
        ...LanguageSchema,
        description: 'Only items in this language (report styles have none).',
      }),
      origin: Type.Optional(
        Type.Enum(['global', 'own'], {
          description: '`global`: from the global library; `own`: made in this workspace.',
        }),
      ),
      edited: Type.Optional(
        Type.Boolean({ description: 'Only global items changed (true) or unchanged (false) since their import.' }),
      ),
      q: Type.Optional(Type.String({ maxLength: 200, description: 'Words the name contains (case-insensitive).' })),
    }),
    responses: {
      200: {
        description: 'One page of library items.',
        schema: { arrayOf: 'LibraryItem' },
        headers: PAGINATION_HEADERS,
      },
      404: { description: 'External collaborators: the library is not theirs (`not_found`).', schema: 'Error' },
    },
    async handler(ctx, { query, principal }) {
      assertAllowed(principal, 'read', WORKSPACE_WIDE, 'library');
      const db = principal.tenant;
      const kinds = query.kind ? [query.kind] : KIND_NAMES;
      const parts = kinds.map((kind) => {
        const k = KINDS[kind];
        return db(k.table).select(
          db.raw('? as kind', [kind]),
          'id',
          db.raw(`${k.name} as name`),
          db.raw(k.language ? 'language' : 'null::text as language'),
          'global_key',
          'global_revision',
          'edited',
          'global_removed_at',
          'updated_at',
        );
      });
      let union = parts[0]! as Knex.QueryBuilder;
      for (const part of parts.slice(1)) union = union.unionAll(part);
      const q = db.from(union.as('l'));
      if (query.language) q.where('language', query.language);
      if (query.origin) q[query.origin === 'global' ? 'whereNotNull' : 'whereNull']('global_key');
      if (query.edited !== undefined) q.where('edited', query.edited);
      for (const word of (query.q ?? '')
        .toLowerCase()
        .match(/[\p{L}\p{N}]+/gu)
        ?.slice(0, 8) ?? [])
        q.whereRaw('lower(name) like ?', [`%${word}%`]);
      const page = toPage(query);
      const { rows, total } = await selectPage<LibraryItemRow>(db, q, ['*'], {
        offset: page.offset,
        limit: page.perPage,
        order: [
          ['kind', 'asc'],
          ['name', 'asc'],
          ['id', 'asc'],
        ],
      });
      setPaginationHeaders(ctx, page, total);
      ctx.body = rows.map((r) => ({
        kind: r.kind,
        id: r.id,
        name: r.name,
        language: r.language,
        globalKey: r.global_key,
        globalRevision: r.global_revision,
        edited: r.edited === true,
        globalRemovedAt: r.global_removed_at?.toISOString() ?? null,
        updatedAt: r.updated_at.toISOString(),
        href: `/rest/v1/${KINDS[r.kind].path}/${r.id}`,
      }));
    },
  });
}
