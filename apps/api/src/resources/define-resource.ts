import type { Context } from 'koa';
import { Type, type TSchema } from 'typebox';
import { PAGINATION_HEADERS, PaginationQuery, setPaginationHeaders, toPage, type ResponseDoc } from '@service/http';
import { Timestamp, Uuid } from '@service/report-model';
import type { AppContext } from '../app-context.ts';
import { defineRestRoute } from '../rest/define-rest-route.ts';
import { createSchema, responseSchema, updateSchema } from './field.ts';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_RESPONSES, runIdempotentCreate } from './idempotent-create.ts';
import { exampleRow, pickFields } from './resource-example.ts';
import { assertSearchTerms, SEARCH_LIMITS, SEARCH_RULE, searchWithinLimit } from './search-terms.ts';
import type { ResourceRepository } from './resource-repository.ts';

export interface Resource {
  repository: ResourceRepository;
}

const IdParams = Type.Object({ id: Uuid });
const CONFLICT_RESPONSE: Record<number, ResponseDoc> = {
  409: {
    description:
      'The row changed since `expectedUpdatedAt` (`conflict`); nothing was written. ' +
      '`details[0].value` is the current `updatedAt`.',
    schema: 'Error',
  },
};
const INVALID_REFERENCE_RESPONSE: Record<number, ResponseDoc> = {
  422: {
    description:
      'A field names a row that does not exist or is not visible to you (`invalid_reference`, naming the field).',
    schema: 'Error',
  },
};
/**
 * The one mechanism behind every REST resource: list (filters, search, pagination headers),
 * get, create (idempotent with `Idempotency-Key`), update (with `expectedUpdatedAt` where
 * declared) and delete (trash or permanent). Handlers are thin: the repository applies
 * visibility and the access policy; each operation is documented from the same schemas.
 */
export function defineResource(app: AppContext, repository: ResourceRepository): Resource {
  const decl = repository.declaration;
  const { registry } = app;
  const ops = { list: true, get: true, create: true, update: true, delete: true, ...decl.operations };
  const base = `/rest/v1/${decl.name}`;
  const filters = decl.filters ?? {};
  const Schema = responseSchema(decl.fields, decl.extraResponse);
  const camel = decl.schemaName;
  const plural = camel.endsWith('y') ? `${camel.slice(0, -1)}ies` : `${camel}s`;
  // A full row as the API returns it: the create example's fields, or the declared response values, and the rest generated.
  const example = exampleRow(decl, decl.create ? pickFields(decl, decl.create.example) : (decl.responseExample ?? {}));
  registry.addSchema(decl.schemaName, Schema);
  registry.addTag(decl.tag, decl.description);

  if (ops.list) {
    const filterProps: Record<string, TSchema> = {};
    for (const [name, f] of Object.entries(filters))
      filterProps[name] = Type.Optional({ ...f.schema, description: f.description } as TSchema);
    const Query = Type.Object({
      ...PaginationQuery,
      ...(decl.searchable === false
        ? {}
        : {
            q: Type.Optional(
              Type.String({
                maxLength: SEARCH_LIMITS.chars,
                description:
                  `Text search (prefix match on each word). ${SEARCH_RULE}` +
                  (decl.search?.alternatives
                    ? ' Common abbreviations match what they stand for (IDOR, XSS, SQLi, CSRF, SSRF, RCE, LFI, XXE, ...).'
                    : '') +
                  (decl.search?.rankFirst ? ' Rows whose title matches come first.' : ''),
              }),
            ),
          }),
      id: Type.Optional({ ...Uuid, description: 'Only the row with this id.' } as TSchema),
      updated_since: Type.Optional({
        ...Timestamp,
        description: 'Only rows changed at or after this time.',
      } as TSchema),
      ...filterProps,
    });
    defineRestRoute(app, {
      method: 'get',
      path: base,
      operationId: decl.operationIds?.list ?? `list${plural}`,
      summary: `List ${decl.name.replace(/-/g, ' ')}`,
      description:
        `One page of the ${decl.name.replace(/-/g, ' ')} you can see, in a stable order, ` +
        `with the pagination headers. Filters combine with AND; unknown query parameters ` +
        `are ignored.`,
      tags: [decl.tag],
      query: Query,
      ...(decl.searchable === false
        ? {}
        : {
            heavy: 'A search (with `q`)',
            heavyWhen: (ctx: Context) => typeof ctx.query.q === 'string' && ctx.query.q !== '',
          }),
      responses: {
        200: {
          description: 'One page of rows, in a stable order.',
          schema: { arrayOf: decl.schemaName },
          headers: PAGINATION_HEADERS,
          example: example ? [example] : undefined,
        },
      },
      async handler(ctx, { query, principal }) {
        const q = query as Record<string, unknown>;
        const page = toPage(q);
        const search = typeof q.q === 'string' && decl.searchable !== false ? q.q : undefined;
        if (search !== undefined) assertSearchTerms(search);
        const request = {
          filters: Object.fromEntries(Object.keys(filters).map((k) => [k, q[k]])),
          q: q.q as string | undefined,
          id: q.id as string | undefined,
          updatedSince: q.updated_since as string | undefined,
          offset: page.offset,
          limit: page.perPage,
        };
        const { rows, total } =
          search === undefined
            ? await repository.list(principal.tenant, principal, request)
            : await searchWithinLimit(principal.tenant, app.deps.config.searchStatementTimeoutMs, search, (trx) =>
                repository.list(trx, principal, request),
              );
        setPaginationHeaders(ctx, page, total);
        ctx.body = rows.map((r) => repository.present(r));
      },
    });
  }

  if (ops.get) {
    defineRestRoute(app, {
      method: 'get',
      path: `${base}/{id}`,
      operationId: decl.operationIds?.get ?? `get${camel}`,
      summary: `Get one ${decl.label}`,
      description: `The ${decl.label} with this id; 404 when it does not exist or you may not see it.`,
      tags: [decl.tag],
      params: IdParams,
      responses: { 200: { description: `The ${decl.label}.`, schema: decl.schemaName, example } },
      async handler(ctx, { params, principal }) {
        ctx.body = repository.present(await repository.require(principal.tenant, principal, params.id, 'read'));
      },
    });
  }

  if (ops.create && decl.create) {
    const create = decl.create;
    defineRestRoute(app, {
      method: 'post',
      path: base,
      operationId: decl.operationIds?.create ?? `create${camel}`,
      summary: `Create a ${decl.label}`,
      description: `Creates a ${decl.label}. Send \`Idempotency-Key\` to make a retry safe.`,
      tags: [decl.tag],
      headers: [IDEMPOTENCY_HEADER],
      body: { schema: createSchema(decl.fields, create.extra, create.bodyRules), example: create.example },
      responses: {
        201: {
          description: 'Created.',
          schema: decl.schemaName,
          headers: { Location: { description: 'The new row.' } },
          example,
        },
        ...IDEMPOTENCY_RESPONSES,
      },
      async handler(ctx, { body, principal }) {
        await runIdempotentCreate(ctx, principal, {
          body,
          work: async (trx) => {
            const row = await repository.create(trx, principal, body as Record<string, unknown>);
            return { status: 201, headers: { Location: `${base}/${row.id}` }, body: repository.present(row) };
          },
          // Why: a replay answers with what the caller may see now (a share may have ended since).
          stillVisible: async (stored) =>
            (await repository.find(principal.tenant, principal, String((stored as { id?: unknown }).id))) !== null,
        });
      },
    });
  }

  if (ops.update) {
    const Body = updateSchema(
      decl.fields,
      decl.concurrency
        ? {
            expectedUpdatedAt: Type.Optional({
              ...Timestamp,
              description:
                'The `updatedAt` you read; if the row changed since, nothing is written and the ' +
                'answer is 409 `conflict`.',
            } as TSchema),
          }
        : {},
    );
    defineRestRoute(app, {
      method: 'patch',
      path: `${base}/{id}`,
      operationId: decl.operationIds?.update ?? `update${camel}`,
      summary: `Change a ${decl.label}`,
      description: `Changes the fields you send; absent fields keep their value. A GET body restricted to these fields can be sent back as is.${
        decl.concurrency
          ? ' Send `expectedUpdatedAt` to make the change conditional on nobody having ' +
            'changed the row since you read it.'
          : ''
      }`,
      tags: [decl.tag],
      params: IdParams,
      body: { schema: Body, example: decl.updateExample },
      responses: {
        200: { description: 'The changed row.', schema: decl.schemaName, example },
        ...(decl.concurrency ? CONFLICT_RESPONSE : {}),
        ...(Object.values(decl.fields).some((f) => f.update && f.references) ? INVALID_REFERENCE_RESPONSE : {}),
      },
      async handler(ctx, { params, body, principal }) {
        const { expectedUpdatedAt, ...changes } = body as Record<string, unknown> & { expectedUpdatedAt?: string };
        ctx.body = repository.present(
          await repository.update(principal.tenant, principal, params.id, changes, { expectedUpdatedAt }),
        );
      },
    });
  }

  if (ops.delete) {
    defineRestRoute(app, {
      method: 'delete',
      path: `${base}/{id}`,
      operationId: decl.operationIds?.delete ?? `delete${camel}`,
      summary: decl.trash ? `Move a ${decl.label} to the trash` : `Delete a ${decl.label} permanently`,
      description: decl.trash
        ? 'What belongs to it disappears from lists and answers 404 too; an administrator can restore it whole. ' +
          `Safe to retry: deleting a ${decl.label} you moved to the trash yourself answers 204 again, as long as ` +
          'you may still delete it; for anyone else it answers 404 like any row they cannot see.'
        : 'Not recoverable. Not safe to retry: once it is deleted, the same request answers 404.',
      tags: [decl.tag],
      params: IdParams,
      retrySafe: decl.trash === true,
      responses: {
        204: { description: decl.trash ? 'Moved to the trash (now, or by you before).' : 'Deleted.' },
      },
      async handler(ctx, { params, principal }) {
        await repository.remove(principal.tenant, principal, params.id);
        ctx.status = 204;
      },
    });
  }

  return { repository };
}
