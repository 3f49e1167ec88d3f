import { Type } from 'typebox';
import { ConflictError, defineRoute, NotFoundError, PAGINATION_HEADERS, PaginationQuery, setPaginationHeaders, toPage } from '@service/http';
import type { AppContext } from '../../app-context.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { assertAllowed } from '../access.ts';
import type { Resource } from '../define-resource.ts';
import { Timestamp, Uuid } from '../field.ts';
import { selectPage } from '../select-page.ts';

const TrashItem = Type.Object({
  type: Type.Enum(['client', 'project', 'report']),
  id: Uuid,
  name: Type.String(),
  clientId: Uuid,
  projectId: Type.Union([Uuid, Type.Null()]),
  deletedAt: Timestamp,
  deletedBy: Type.Union([Uuid, Type.Null()]),
});

/** What restoring needs to know about each trashable resource: the parent that must be alive first. */
const PARENTS: Record<'clients' | 'projects' | 'reports', { table: string; column: string; label: string } | null> = {
  clients: null,
  projects: { table: 'clients', column: 'client_id', label: 'client' },
  reports: { table: 'projects', column: 'project_id', label: 'project' },
};

/**
 * The workspace trash: `GET /rest/v1/trash` and `POST /rest/v1/{clients|projects|reports}/{id}/restore`,
 * administrators only. A restored item comes back exactly as it was, with everything under it
 * that was not deleted on its own.
 */
export function registerTrash(app: AppContext, resources: Record<'clients' | 'projects' | 'reports', Resource>): void {
  const { router, registry, routeDefaults } = app;
  registry.addTag('Trash', 'Deleted clients, projects and reports, restorable by administrators.');
  registry.addSchema('TrashItem', TrashItem);

  defineRoute(router, registry, routeDefaults, {
    method: 'get',
    path: '/rest/v1/trash',
    operationId: 'list_trash',
    summary: 'List the trash (administrators)',
    tags: ['Trash'],
    security: 'apiKey',
    query: Type.Object({ ...PaginationQuery, type: Type.Optional(Type.Enum(['client', 'project', 'report'])) }),
    responses: { 200: { description: 'Trashed items, most recently deleted first.', schema: { arrayOf: 'TrashItem' }, headers: PAGINATION_HEADERS } },
    async handler(ctx, { query }) {
      const principal = ctx.state.principal as RestPrincipal;
      assertAllowed(principal, 'restore', { clientId: null, grant: null, workspaceWide: true }, 'trash');
      const db = principal.tenant;
      const page = toPage(query);
      const union = db
        .select(db.raw("'client' as type"), 'id', 'name', db.raw('id as client_id'), db.raw('null::uuid as project_id'), 'deleted_at', 'deleted_by')
        .from('clients')
        .whereNotNull('deleted_at')
        .unionAll((u) => u.select(db.raw("'project'"), 'id', 'name', 'client_id', db.raw('null::uuid'), 'deleted_at', 'deleted_by').from('projects').whereNotNull('deleted_at'))
        .unionAll((u) =>
          u.select(db.raw("'report'"), 'r.id', 'r.title', 'p.client_id', 'r.project_id', 'r.deleted_at', 'r.deleted_by').from('reports as r').join('projects as p', 'p.id', 'r.project_id').whereNotNull('r.deleted_at'),
        );
      const q = db.from(union.as('t'));
      if (query.type) q.where('type', query.type);
      const { rows, total } = await selectPage<Record<string, unknown>>(db, q, ['*'], { offset: page.offset, limit: page.perPage, order: [['deleted_at', 'desc'], ['id', 'asc']] });
      setPaginationHeaders(ctx, page, total);
      ctx.body = rows.map((r) => ({
        type: r.type,
        id: r.id,
        name: r.name,
        clientId: r.client_id,
        projectId: r.project_id,
        deletedAt: (r.deleted_at as Date).toISOString(),
        deletedBy: r.deleted_by,
      }));
    },
  });

  for (const name of ['clients', 'projects', 'reports'] as const) {
    const resource = resources[name];
    const label = resource.declaration.label;
    defineRoute(router, registry, routeDefaults, {
      method: 'post',
      path: `/rest/v1/${name}/{id}/restore`,
      operationId: `restore_${name}`,
      summary: `Restore a ${label} from the trash (administrators)`,
      tags: ['Trash'],
      security: 'apiKey',
      params: Type.Object({ id: Uuid }),
      responses: {
        200: { description: `The restored ${label}.`, schema: resource.declaration.schemaName },
        409: { description: `What the ${label} belongs to is in the trash too; restore that first (\`conflict\`).`, schema: 'Error' },
      },
      async handler(ctx, { params }) {
        const principal = ctx.state.principal as RestPrincipal;
        const db = principal.tenant;
        assertAllowed(principal, 'restore', { clientId: null, grant: null, workspaceWide: true }, label);
        const trashed = await db(resource.declaration.table).where({ id: params.id }).whereNotNull('deleted_at').first();
        if (!trashed) {
          throw new NotFoundError(`No ${label} ${params.id} is in the trash.`);
        }
        const parent = PARENTS[name];
        if (parent) {
          const up = await db(parent.table).where({ id: trashed[parent.column] }).first();
          if (up?.deleted_at) throw new ConflictError(`The ${parent.label} ${up.id} of this ${label} is in the trash; restore it first.`);
          if (name === 'reports') {
            const client = await db('clients').where({ id: up.client_id }).first();
            if (client?.deleted_at) throw new ConflictError(`The client ${client.id} of this report is in the trash; restore it first.`);
          }
        }
        await db(resource.declaration.table).where({ id: params.id }).update({ deleted_at: null, deleted_by: null });
        ctx.body = resource.present((await resource.store.find(db, principal, params.id))!);
      },
    });
  }
}
