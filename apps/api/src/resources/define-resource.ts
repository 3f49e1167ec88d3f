import type { Context } from 'koa';
import type { Knex } from 'knex';
import { Type, type TSchema } from 'typebox';
import { ConflictError, defineRoute, type ResponseDoc, NotFoundError, PAGINATION_HEADERS, PaginationQuery, requestFingerprint, runIdempotent, setPaginationHeaders, toPage } from '@service/http';
import type { AppContext } from '../app-context.ts';
import type { RestPrincipal } from '../rest/rest-pipeline.ts';
import { assertAllowed, type RowAccess } from './access.ts';
import { apiToColumns, createSchema, responseSchema, rowToApi, Timestamp, updateSchema, Uuid, type Field, type Fields } from './field.ts';
import { ResourceStore, type ListFilter, type Row } from './resource-store.ts';
import type { Visibility } from './visibility.ts';

export interface CreateContext {
  trx: Knex.Transaction;
  principal: RestPrincipal;
  input: Record<string, unknown>;
}

export interface ResourceDeclaration {
  /** Path segment and name: `clients`, `report-tabs`. */
  name: string;
  /** OpenAPI component name: `Client`. */
  schemaName: string;
  /** Singular label for messages: `client`, `report tab`. */
  label: string;
  tag: string;
  description: string;
  table: string;
  visibility: Visibility;
  fields: Fields;
  order?: Array<[string, 'asc' | 'desc']>;
  filters?: Record<string, ListFilter>;
  searchable?: boolean;
  /** Deleted into the trash (restorable) instead of permanently. */
  trash?: boolean;
  /** PATCH accepts `expectedUpdatedAt`. */
  concurrency?: boolean;
  /** POST honours `Idempotency-Key`. */
  idempotentCreate?: boolean;
  /** Operations offered; default all five. */
  operations?: Partial<Record<'list' | 'get' | 'create' | 'update' | 'delete', boolean>>;
  create?: {
    /** Body fields beyond the resource's own (e.g. `reportId` for findings, `templateId` for reports). */
    extra?: Record<string, TSchema>;
    example: Record<string, unknown>;
    /**
     * Checks the parent the new row goes under and returns who owns it (for the policy) plus any
     * column values derived from it. Without it the row is workspace-level (clients, libraries).
     */
    resolveParent?(ctx: CreateContext): Promise<{ access: RowAccess; columns?: Record<string, unknown> }>;
    /** Runs in the same transaction after the insert (e.g. copy a template's tabs, attach to a report). */
    afterInsert?(ctx: CreateContext & { row: Record<string, unknown> }): Promise<void>;
  };
  /** Runs in the delete's transaction before a permanent delete (e.g. collect evidence files to remove). */
  beforeDelete?(trx: Knex.Transaction, row: Row): Promise<(() => Promise<void>) | void>;
  /** Extra response fields computed from the row. */
  present?(row: Record<string, unknown>, api: Record<string, unknown>): Record<string, unknown>;
  extraResponse?: Record<string, TSchema>;
  /** Computed columns added to every read (for `present`). */
  extraSelect?: (db: Knex) => Knex.Raw[];
  /** Table columns read besides the fields' own (e.g. a storage key used by handlers). */
  internalColumns?: string[];
}

export interface Resource {
  declaration: ResourceDeclaration;
  store: ResourceStore;
  present(row: Record<string, unknown>): Record<string, unknown>;
}

const IdParams = Type.Object({ id: Uuid });
const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  description: 'Makes a retry safe: the same key and request within 24 hours returns the original response with `Idempotent-Replayed: true` and creates nothing.',
  schema: { type: 'string', maxLength: 255 },
};

export const IDEMPOTENCY_RESPONSES: Record<number, ResponseDoc> = {
  409: { description: 'The same `Idempotency-Key` is still being processed (`idempotency_in_progress`).', schema: 'Error' },
  422: { description: 'The `Idempotency-Key` was used for a different request (`idempotency_key_reused`).', schema: 'Error' },
};
const CONFLICT_RESPONSE: Record<number, ResponseDoc> = {
  409: { description: 'The row changed since `expectedUpdatedAt` (`conflict`); nothing was written.', schema: 'Error' },
};

function principalOf(ctx: Context): RestPrincipal {
  return ctx.state.principal as RestPrincipal;
}

/** updated_at always moves forward, even for two writes within one millisecond. */
export function nextUpdatedAt(db: Knex, alias = ''): Knex.Raw {
  const col = alias ? `${alias}.updated_at` : 'updated_at';
  return db.raw(`greatest(date_trunc('milliseconds', clock_timestamp()), ${col} + interval '1 millisecond')`);
}

/**
 * The one mechanism behind every REST resource: list (filters, search, pagination headers),
 * get, create (optionally idempotent), update (optionally with `expectedUpdatedAt`) and delete
 * (trash or permanent), with visibility and the access policy applied, and each operation
 * documented in the OpenAPI registry from the same schemas.
 */
export function defineResource(app: AppContext, decl: ResourceDeclaration): Resource {
  const { router, registry, routeDefaults } = app;
  const ops = { list: true, get: true, create: true, update: true, delete: true, ...decl.operations };
  const base = `/rest/v1/${decl.name}`;
  const filters = decl.filters ?? {};
  const store = new ResourceStore(decl.table, decl.visibility, {
    label: decl.label,
    trash: decl.trash,
    order: decl.order ?? [['r.created_at', 'asc']],
    filters,
    searchable: decl.searchable ?? true,
    extraSelect: decl.extraSelect,
    columns: [...new Set([...Object.values(decl.fields).map((f) => f.column).filter((c) => !c.startsWith('_')), ...(decl.internalColumns ?? [])])],
  });
  const present = (row: Record<string, unknown>) => {
    const api = rowToApi(decl.fields, row);
    return decl.present ? { ...api, ...decl.present(row, api) } : api;
  };
  const Schema = responseSchema(decl.fields, decl.extraResponse);
  // The create example as it comes back: with an id and timestamps, without body-only fields.
  const example = decl.create
    ? Object.fromEntries(
        Object.entries({ id: '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b', createdAt: '2026-11-02T09:30:00.000Z', updatedAt: '2026-11-02T09:30:00.000Z', ...decl.create.example }).filter(([k]) => k in decl.fields),
      )
    : undefined;
  registry.addSchema(decl.schemaName, Schema);
  registry.addTag(decl.tag, decl.description);
  const tenant = (ctx: Context) => principalOf(ctx).tenant;

  if (ops.list) {
    const filterProps: Record<string, TSchema> = {};
    for (const [name, f] of Object.entries(filters)) filterProps[name] = Type.Optional({ ...f.schema, description: f.description } as TSchema);
    const Query = Type.Object({
      ...PaginationQuery,
      ...(decl.searchable === false ? {} : { q: Type.Optional(Type.String({ maxLength: 200, description: 'Text search (prefix match on each word).' })) }),
      id: Type.Optional({ ...Uuid, description: 'Only the row with this id.' } as TSchema),
      updated_since: Type.Optional({ ...Timestamp, description: 'Only rows changed at or after this time.' } as TSchema),
      ...filterProps,
    });
    defineRoute(router, registry, routeDefaults, {
      method: 'get',
      path: base,
      operationId: `list_${decl.name}`,
      summary: `List ${decl.name.replace(/-/g, ' ')}`,
      tags: [decl.tag],
      security: 'apiKey',
      query: Query,
      responses: { 200: { description: 'One page of rows, in a stable order.', schema: { arrayOf: decl.schemaName }, headers: PAGINATION_HEADERS, example: example ? [example] : undefined } },
      async handler(ctx, { query }) {
        const q = query as Record<string, unknown>;
        const page = toPage(q);
        const picked = Object.fromEntries(Object.keys(filters).map((k) => [k, q[k]]));
        const { rows, total } = await store.list(tenant(ctx), principalOf(ctx), {
          filters: picked,
          q: q.q as string | undefined,
          id: q.id as string | undefined,
          updatedSince: q.updated_since as string | undefined,
          offset: page.offset,
          limit: page.perPage,
        });
        setPaginationHeaders(ctx, page, total);
        ctx.body = rows.map(present);
      },
    });
  }

  if (ops.get) {
    defineRoute(router, registry, routeDefaults, {
      method: 'get',
      path: `${base}/{id}`,
      operationId: `get_${decl.name}`,
      summary: `Get one ${decl.label}`,
      tags: [decl.tag],
      security: 'apiKey',
      params: IdParams,
      responses: { 200: { description: `The ${decl.label}.`, schema: decl.schemaName, example } },
      async handler(ctx, { params }) {
        const row = await store.require(tenant(ctx), principalOf(ctx), params.id, 'read');
        ctx.body = present(row);
      },
    });
  }

  if (ops.create && decl.create) {
    const create = decl.create;
    const Body = createSchema(decl.fields, create.extra);
    defineRoute(router, registry, routeDefaults, {
      method: 'post',
      path: base,
      operationId: `create_${decl.name}`,
      summary: `Create a ${decl.label}`,
      tags: [decl.tag],
      security: 'apiKey',
      headers: decl.idempotentCreate ? [IDEMPOTENCY_HEADER] : undefined,
      body: { schema: Body, example: create.example },
      responses: {
        201: { description: 'Created.', schema: decl.schemaName, headers: { Location: { description: 'The new row.' } }, example },
        ...(decl.idempotentCreate ? IDEMPOTENCY_RESPONSES : {}),
      },
      async handler(ctx, { body }) {
        const principal = principalOf(ctx);
        const input = body as Record<string, unknown>;
        const outcome = await runIdempotent(
          tenant(ctx),
          {
            apiKeyId: principal.keyId,
            key: decl.idempotentCreate ? ctx.get('Idempotency-Key') || null : null,
            fingerprint: requestFingerprint({ method: 'POST', path: base, body: input }),
          },
          async (trx) => {
            const cctx: CreateContext = { trx, principal, input };
            const parent = create.resolveParent ? await create.resolveParent(cctx) : { access: { clientId: null, grant: null, workspaceWide: true } };
            assertAllowed(principal, 'create', parent.access, decl.label);
            const [row] = await trx(decl.table)
              .insert({ ...apiToColumns(decl.fields, input, (f: Field) => f.create !== undefined), ...parent.columns, created_by: principal.userId })
              .returning('*');
            await create.afterInsert?.({ ...cctx, row });
            const fresh = await store.find(trx, principal, row.id);
            return { status: 201, headers: { Location: `${base}/${row.id}` }, body: present(fresh ?? row) };
          },
        );
        for (const [k, v] of Object.entries(outcome.headers)) ctx.set(k, v);
        if (outcome.replayed) ctx.set('Idempotent-Replayed', 'true');
        ctx.status = outcome.status;
        ctx.body = outcome.body;
      },
    });
  }

  if (ops.update) {
    const Body = updateSchema(decl.fields, decl.concurrency ? { expectedUpdatedAt: Type.Optional({ ...Timestamp, description: 'The `updatedAt` you read; if the row changed since, nothing is written and the answer is 409 `conflict`.' } as TSchema) } : {});
    defineRoute(router, registry, routeDefaults, {
      method: 'patch',
      path: `${base}/{id}`,
      operationId: `update_${decl.name}`,
      summary: `Change a ${decl.label}`,
      description: decl.concurrency ? 'Send `expectedUpdatedAt` to make the change conditional on nobody having changed the row since you read it.' : undefined,
      tags: [decl.tag],
      security: 'apiKey',
      params: IdParams,
      body: { schema: Body },
      responses: {
        200: { description: 'The changed row.', schema: decl.schemaName },
        ...(decl.concurrency ? CONFLICT_RESPONSE : {}),
      },
      async handler(ctx, { params, body }) {
        const principal = principalOf(ctx);
        const db = tenant(ctx);
        const { expectedUpdatedAt, ...changes } = body as Record<string, unknown> & { expectedUpdatedAt?: string };
        await store.require(db, principal, params.id, 'update');
        const q = db(decl.table)
          .where({ id: params.id })
          .update({ ...apiToColumns(decl.fields, changes, (f) => f.update === true), updated_at: nextUpdatedAt(db) })
          .returning('id');
        // Why: one conditional UPDATE; a concurrent writer makes it match nothing instead of being overwritten.
        if (expectedUpdatedAt !== undefined) q.andWhere('updated_at', new Date(expectedUpdatedAt));
        const updated = await q;
        if (updated.length === 0) {
          const current = await store.find(db, principal, params.id);
          if (!current) throw new NotFoundError(`The ${decl.label} ${params.id} was not found.`);
          throw new ConflictError(`The ${decl.label} was changed since ${expectedUpdatedAt}; read it again and reapply your change.`, 'conflict', {
            updatedAt: (current.updated_at as Date).toISOString(),
          });
        }
        ctx.body = present((await store.find(db, principal, params.id))!);
      },
    });
  }

  if (ops.delete) {
    defineRoute(router, registry, routeDefaults, {
      method: 'delete',
      path: `${base}/{id}`,
      operationId: `delete_${decl.name}`,
      summary: decl.trash ? `Move a ${decl.label} to the trash` : `Delete a ${decl.label} permanently`,
      description: decl.trash
        ? 'What belongs to it disappears from lists and answers 404 too; an administrator can restore it whole.'
        : 'Not recoverable.',
      tags: [decl.tag],
      security: 'apiKey',
      params: IdParams,
      responses: { 204: { description: decl.trash ? 'Moved to the trash.' : 'Deleted.' } },
      async handler(ctx, { params }) {
        const principal = principalOf(ctx);
        const db = tenant(ctx);
        const afterCommit = await db.transaction(async (trx) => {
          const row = await store.require(trx, principal, params.id, 'delete', { forUpdate: true });
          if (decl.trash) {
            await trx(decl.table).where({ id: params.id }).update({ deleted_at: trx.fn.now(3), deleted_by: principal.userId });
            return undefined;
          }
          const cleanup = await decl.beforeDelete?.(trx, row);
          await trx(decl.table).where({ id: params.id }).delete();
          return cleanup ?? undefined;
        });
        if (afterCommit) await afterCommit();
        ctx.status = 204;
      },
    });
  }

  return { declaration: decl, store, present };
}
