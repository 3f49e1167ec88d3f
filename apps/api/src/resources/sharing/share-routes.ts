import { Type } from 'typebox';
import { defineRoute, NotFoundError, UnprocessableError } from '@service/http';
import type { AppContext } from '../../app-context.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import type { Resource } from '../define-resource.ts';
import { Timestamp, Uuid } from '../field.ts';

const Share = Type.Object({
  userId: Uuid,
  email: Type.String(),
  name: Type.String(),
  access: Type.Enum(['view', 'edit']),
  createdAt: Timestamp,
});
const ShareBody = Type.Object({ userId: Uuid, access: Type.Enum(['view', 'edit'], { description: '`view` reads and exports; `edit` also changes what is in it.' }) }, { additionalProperties: false });

/**
 * Sharing a project (and everything in it) or one report with an external collaborator.
 * Removing a share removes the access at once: visibility is computed from grants on every read.
 */
export function registerShares(app: AppContext, resources: { projects: Resource; reports: Resource }): void {
  const { router, registry, routeDefaults } = app;
  registry.addTag('Sharing', 'Give external collaborators access to one project or one report.');
  registry.addSchema('Share', Share);
  const cp = app.deps.dbs.controlPlane;

  for (const [name, type] of [
    ['projects', 'project'],
    ['reports', 'report'],
  ] as const) {
    const resource = resources[name];
    const IdParams = Type.Object({ id: Uuid });

    async function presentShares(principal: RestPrincipal, resourceId: string) {
      const grants = await principal.tenant('grants').where({ resource_type: type, resource_id: resourceId }).orderBy([{ column: 'created_at' }, { column: 'user_id' }]);
      const users = grants.length ? await cp('users').whereIn('id', grants.map((g: { user_id: string }) => g.user_id)).select('id', 'email', 'name') : [];
      const byId = new Map(users.map((u: { id: string; email: string; name: string }) => [u.id, u]));
      return grants.map((g: { user_id: string; access: string; created_at: Date }) => ({
        userId: g.user_id,
        email: byId.get(g.user_id)?.email ?? '',
        name: byId.get(g.user_id)?.name ?? '',
        access: g.access,
        createdAt: g.created_at.toISOString(),
      }));
    }

    defineRoute(router, registry, routeDefaults, {
      method: 'get',
      path: `/rest/v1/${name}/{id}/shares`,
      operationId: `list_${type}_shares`,
      summary: `List who this ${type} is shared with`,
      tags: ['Sharing'],
      security: 'apiKey',
      params: IdParams,
      responses: { 200: { description: 'The external collaborators with access.', schema: { arrayOf: 'Share' } } },
      async handler(ctx, { params }) {
        const principal = ctx.state.principal as RestPrincipal;
        await resource.store.require(principal.tenant, principal, params.id, 'share');
        ctx.body = await presentShares(principal, params.id);
      },
    });

    defineRoute(router, registry, routeDefaults, {
      method: 'post',
      path: `/rest/v1/${name}/{id}/shares`,
      operationId: `share_${type}`,
      summary: `Share this ${type} with an external collaborator`,
      description: 'Creates or changes the share. Only users with the `external` role can be given shares; other roles already see the workspace.',
      tags: ['Sharing'],
      security: 'apiKey',
      params: IdParams,
      body: { schema: ShareBody, example: { userId: '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b', access: 'view' } },
      responses: { 200: { description: 'All shares of the item after the change.', schema: { arrayOf: 'Share' } } },
      async handler(ctx, { params, body }) {
        const principal = ctx.state.principal as RestPrincipal;
        await resource.store.require(principal.tenant, principal, params.id, 'share');
        const user = await cp('users').where({ id: body.userId, organization_id: principal.organizationId }).first();
        if (!user) throw new NotFoundError(`The user ${body.userId} was not found.`);
        if (user.role !== 'external') throw new UnprocessableError('not_external', `${user.email} is a ${user.role} and already sees the workspace; only external users get shares.`);
        await principal.tenant('grants')
          .insert({ user_id: body.userId, resource_type: type, resource_id: params.id, access: body.access, created_by: principal.userId })
          .onConflict(['user_id', 'resource_type', 'resource_id'])
          .merge({ access: body.access, updated_at: principal.tenant.fn.now(3) });
        ctx.body = await presentShares(principal, params.id);
      },
    });

    defineRoute(router, registry, routeDefaults, {
      method: 'delete',
      path: `/rest/v1/${name}/{id}/shares/{userId}`,
      operationId: `unshare_${type}`,
      summary: `Remove a collaborator's access to this ${type}`,
      tags: ['Sharing'],
      security: 'apiKey',
      params: Type.Object({ id: Uuid, userId: Uuid }),
      responses: { 204: { description: 'Removed; the access ends at once.' } },
      async handler(ctx, { params }) {
        const principal = ctx.state.principal as RestPrincipal;
        await resource.store.require(principal.tenant, principal, params.id, 'share');
        const n = await principal.tenant('grants').where({ user_id: params.userId, resource_type: type, resource_id: params.id }).delete();
        if (n === 0) throw new NotFoundError(`The ${type} is not shared with the user ${params.userId}.`);
        ctx.status = 204;
      },
    });
  }
}
