import type { Knex } from 'knex';
import { Type } from 'typebox';
import { ForbiddenError, NotFoundError, UnprocessableError } from '@service/http';
import { Timestamp, Uuid } from '@service/report-model';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_RESPONSES, runIdempotentCreate } from '../idempotent-create.ts';
import type { ResourceRepository } from '../resource-repository.ts';
import type { GrantsRepository, ShareTarget } from './grants-repository.ts';

const Share = Type.Object({
  userId: Uuid,
  email: Type.String(),
  name: Type.String(),
  access: Type.Enum(['view', 'edit']),
  createdAt: Timestamp,
});
const ShareBody = Type.Object(
  {
    userId: Uuid,
    access: Type.Enum(['view', 'edit'], {
      description: '`view` reads and exports; `edit` also changes what is in it.',
    }),
  },
  { additionalProperties: false },
);

/**
 * Sharing a project (and everything in it) or one report with an external collaborator.
 * Removing a share removes the access at once: visibility is computed from grants on every read.
 */
export function registerShares(
  app: AppContext,
  grants: GrantsRepository,
  repositories: Record<ShareTarget, ResourceRepository>,
): void {
  app.registry.addTag('Sharing', 'Give external collaborators access to one project or one report.');
  app.registry.addSchema('Share', Share);
  const users = app.identity.users;

  async function presentShares(db: Knex, principal: RestPrincipal, type: ShareTarget, resourceId: string) {
    const rows = await grants.list(db, type, resourceId);
    const byId = new Map(
      (rows.length ? await users.list(principal.organizationId, { ids: rows.map((g) => g.user_id) }) : []).map((u) => [
        u.id,
        u,
      ]),
    );
    return rows.map((g) => ({
      userId: g.user_id,
      email: byId.get(g.user_id)?.email ?? '',
      name: byId.get(g.user_id)?.name ?? '',
      access: g.access,
      createdAt: g.created_at.toISOString(),
    }));
  }

  for (const type of ['project', 'report'] as const) {
    const repository = repositories[type];
    const base = `/rest/v1/${repository.declaration.name}/{id}/shares`;
    const Pascal = repository.declaration.schemaName;

    defineRestRoute(app, {
      method: 'get',
      path: base,
      operationId: `list${Pascal}Shares`,
      summary: `List who this ${type} is shared with`,
      description:
        `A read: any member of the workspace who can see the ${type} may list its shares ` +
        `(a read-only key too; the client allow-list does not restrict it). External ` +
        `collaborators do not see who else it is shared with.`,
      tags: ['Sharing'],
      params: Type.Object({ id: Uuid }),
      responses: { 200: { description: 'The external collaborators with access.', schema: { arrayOf: 'Share' } } },
      async handler(ctx, { params, principal }) {
        await repository.require(principal.tenant, principal, params.id, 'read');
        if (principal.role === 'external')
          throw new ForbiddenError(
            'forbidden',
            'External collaborators cannot list the shares of what is shared with them.',
          );
        ctx.body = await presentShares(principal.tenant, principal, type, params.id);
      },
    });

    defineRestRoute(app, {
      method: 'post',
      path: base,
      operationId: `share${Pascal}`,
      summary: `Share this ${type} with an external collaborator`,
      description:
        'Creates or changes the share. Only users with the `external` role can be given ' +
        'shares; other roles already see the workspace. Send `Idempotency-Key` to make a ' +
        'retry safe.',
      tags: ['Sharing'],
      params: Type.Object({ id: Uuid }),
      headers: [IDEMPOTENCY_HEADER],
      body: { schema: ShareBody, example: { userId: '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b', access: 'view' } },
      responses: {
        200: { description: 'All shares of the item after the change.', schema: { arrayOf: 'Share' } },
        ...IDEMPOTENCY_RESPONSES,
        422: {
          description:
            'The user is not an external collaborator (`not_external`), or the idempotency ' +
            'key was reused (`idempotency_key_reused`).',
          schema: 'Error',
        },
      },
      async handler(ctx, { params, body, principal }) {
        await runIdempotentCreate(ctx, principal, {
          body,
          work: async (trx) => {
            await repository.require(trx, principal, params.id, 'share', { forUpdate: true });
            const user = await users.get(principal.organizationId, body.userId);
            if (!user) throw new NotFoundError(`The user ${body.userId} was not found.`);
            if (user.role !== 'external')
              throw new UnprocessableError(
                'not_external',
                `${user.email} is a ${user.role} and already sees the workspace; only external users get shares.`,
              );
            await grants.upsert(trx, {
              userId: body.userId,
              type,
              resourceId: params.id,
              access: body.access,
              createdBy: principal.userId,
            });
            return { status: 200, headers: {}, body: await presentShares(trx, principal, type, params.id) };
          },
          stillVisible: async () => (await repository.find(principal.tenant, principal, params.id)) !== null,
        });
      },
    });

    defineRestRoute(app, {
      method: 'delete',
      path: `${base}/{userId}`,
      operationId: `unshare${Pascal}`,
      summary: `Remove a collaborator's access to this ${type}`,
      description: 'The access ends at once, also for requests already under way.',
      tags: ['Sharing'],
      params: Type.Object({ id: Uuid, userId: Uuid }),
      responses: { 204: { description: 'Removed; the access ends at once.' } },
      async handler(ctx, { params, principal }) {
        await principal.tenant.transaction(async (trx) => {
          await repository.require(trx, principal, params.id, 'share', { forUpdate: true });
          if (!(await grants.remove(trx, type, params.id, params.userId)))
            throw new NotFoundError(`The ${type} is not shared with the user ${params.userId}.`);
        });
        ctx.status = 204;
      },
    });
  }
}
