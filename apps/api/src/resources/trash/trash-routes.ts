import { Type } from 'typebox';
import { PAGINATION_HEADERS, PaginationQuery, setPaginationHeaders, toPage } from '@service/http';
import { Timestamp, Uuid } from '@service/report-model';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import { IDEMPOTENCY_HEADER, runIdempotentCreate } from '../idempotent-create.ts';
import type { ResourceRepository } from '../resource-repository.ts';
import type { TrashRepository, TrashType } from './trash-repository.ts';

const TrashItem = Type.Object({
  type: Type.Enum(['client', 'project', 'report']),
  id: Uuid,
  name: Type.String(),
  clientId: Uuid,
  projectId: Type.Union([Uuid, Type.Null()]),
  deletedAt: Timestamp,
  deletedBy: Type.Union([Uuid, Type.Null()]),
});

/**
 * The workspace trash: `GET /rest/v1/trash` and `POST /rest/v1/{clients|projects|reports}/{id}/restore`,
 * administrators only. A restored item comes back exactly as it was, with everything under it
 * that was not deleted on its own.
 */
export function registerTrash(
  app: AppContext,
  trash: TrashRepository,
  repositories: Record<TrashType, ResourceRepository>,
): void {
  app.registry.addTag('Trash', 'Deleted clients, projects and reports, restorable by administrators.');
  app.registry.addSchema('TrashItem', TrashItem);

  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/trash',
    operationId: 'listTrash',
    summary: 'List the trash (administrators)',
    description:
      'Trashed clients, projects and reports, most recently deleted first. A read: an ' +
      "administrator's read-only key may list it; the client allow-list does not " +
      'restrict it.',
    tags: ['Trash'],
    query: Type.Object({ ...PaginationQuery, type: Type.Optional(Type.Enum(['client', 'project', 'report'])) }),
    responses: {
      200: {
        description: 'Trashed items, most recently deleted first.',
        schema: { arrayOf: 'TrashItem' },
        headers: PAGINATION_HEADERS,
      },
      404: { description: 'External collaborators: the trash is not theirs (`not_found`).', schema: 'Error' },
    },
    async handler(ctx, { query, principal }) {
      const page = toPage(query);
      const { items, total } = await trash.list(principal.tenant, principal, {
        offset: page.offset,
        limit: page.perPage,
        type: query.type,
      });
      setPaginationHeaders(ctx, page, total);
      ctx.body = items;
    },
  });

  for (const type of ['client', 'project', 'report'] as const) {
    const { declaration } = repositories[type];
    defineRestRoute(app, {
      method: 'post',
      path: `/rest/v1/${declaration.name}/{id}/restore`,
      operationId: `restore${declaration.schemaName}`,
      summary: `Restore a ${type} from the trash (administrators)`,
      description:
        `Brings the ${type} back exactly as it was, with everything under it that was not ` +
        `deleted on its own. What it belongs to must not be in the trash. Send \`Idempotency-Key\` to ` +
        'make a retry safe: without it, a restore sent again after its answer was lost answers 404 (the ' +
        `${type} is no longer in the trash).`,
      tags: ['Trash'],
      params: Type.Object({ id: Uuid }),
      headers: [IDEMPOTENCY_HEADER],
      responses: {
        200: { description: `The restored ${type}.`, schema: declaration.schemaName },
        409: {
          description:
            `What the ${type} belongs to is in the trash too; restore that first (\`conflict\`). Or the same ` +
            '`Idempotency-Key` is still being processed (`idempotency_in_progress`).',
          schema: 'Error',
        },
        422: {
          description: 'The `Idempotency-Key` was used for a different request (`idempotency_key_reused`).',
          schema: 'Error',
        },
      },
      async handler(ctx, { params, principal }) {
        const repository = repositories[type];
        await runIdempotentCreate(ctx, principal, {
          body: null,
          work: async (trx) => ({
            status: 200,
            headers: {},
            body: repository.present(await trash.restore(trx, principal, type, params.id)),
          }),
          // Why: a replay answers with what the caller may see now (it may be in the trash again).
          stillVisible: async () => (await repository.find(principal.tenant, principal, params.id)) !== null,
        });
      },
    });
  }
}
