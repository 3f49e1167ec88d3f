import { Type } from 'typebox';
import { toUser, USER_COLUMNS } from '@service/auth';
import { NotFoundError, PAGINATION_HEADERS, PaginationQuery, setPaginationHeaders, toPage } from '@service/http';
import { Uuid } from '@service/report-model';
import type { AppContext } from '../../app-context.ts';
import { presentUser, RoleSchema } from '../../identity/identity-schemas.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { toPrefixQuery } from '../resource-repository.ts';
import { selectPage } from '../select-page.ts';

/**
 * Users of the organization, read-only over REST. External collaborators see only themselves:
 * the rest of the organization is not shared with them.
 */
export function registerUsers(app: AppContext): void {
  app.registry.addTag(
    'Users',
    'The users of your organization (read-only; administrators manage them in the workspace).',
  );

  const visibleQuery = (principal: RestPrincipal) => {
    const q = app.deps.dbs.controlPlane('users').where({ organization_id: principal.organizationId });
    if (principal.role === 'external') q.andWhere({ id: principal.userId });
    return q;
  };

  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/users',
    operationId: 'listUsers',
    description: 'The users of your organization. External collaborators see only themselves.',
    summary: 'List users',
    tags: ['Users'],
    query: Type.Object({
      ...PaginationQuery,
      q: Type.Optional(Type.String({ maxLength: 200, description: 'Search in name and email.' })),
      id: Type.Optional(Uuid),
      role: Type.Optional(RoleSchema),
      active: Type.Optional(Type.Boolean()),
      updated_since: Type.Optional(Type.String({ format: 'date-time' })),
    }),
    responses: { 200: { description: 'One page of users.', schema: { arrayOf: 'User' }, headers: PAGINATION_HEADERS } },
    async handler(ctx, { query, principal }) {
      const page = toPage(query);
      const q = visibleQuery(principal);
      if (query.id) q.andWhere({ id: query.id });
      if (query.role) q.andWhere({ role: query.role });
      if (query.active !== undefined) q.andWhere({ active: query.active });
      if (query.updated_since) q.andWhere('updated_at', '>=', new Date(query.updated_since));
      if (query.q) {
        const words = toPrefixQuery(query.q);
        q.andWhereRaw(
          "to_tsvector('simple', name || ' ' || replace(email::text, '@', ' ')) @@ to_tsquery('simple', ?)",
          [words ?? ''],
        );
      }
      const { rows, total } = await selectPage<Parameters<typeof toUser>[0]>(
        app.deps.dbs.controlPlane,
        q,
        USER_COLUMNS,
        {
          offset: page.offset,
          limit: page.perPage,
          order: [
            ['created_at', 'asc'],
            ['id', 'asc'],
          ],
        },
      );
      setPaginationHeaders(ctx, page, total);
      ctx.body = rows.map((r) => presentUser(toUser(r)));
    },
  });

  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/users/{id}',
    operationId: 'getUser',
    description: 'One user of your organization; 404 when it does not exist or you may not see it.',
    summary: 'Get one user',
    tags: ['Users'],
    params: Type.Object({ id: Uuid }),
    responses: { 200: { description: 'The user.', schema: 'User' } },
    async handler(ctx, { params, principal }) {
      const row = await visibleQuery(principal).andWhere({ id: params.id }).first(USER_COLUMNS);
      if (!row) throw new NotFoundError(`The user ${params.id} was not found.`);
      ctx.body = presentUser(toUser(row));
    },
  });
}
