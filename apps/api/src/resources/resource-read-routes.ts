import type { Context } from 'koa';
import { Type, type TSchema } from 'typebox';
import { PAGINATION_HEADERS, PaginationQuery, setPaginationHeaders, toPage } from '@service/http';
import { Timestamp, Uuid } from '@service/report-model';
import { defineRestRoute } from '../rest/define-rest-route.ts';
import type { ResourceDeclaration } from './resource-declaration.ts';
import { IdParams, type ResourceRouteContext } from './resource-route-context.ts';
import { assertSearchTerms, SEARCH_LIMITS, SEARCH_RULE, searchWithinLimit } from './search-terms.ts';

/** The query of a resource's list: pagination, `q` where searchable, `id`, `updated_since` and its filters. */
function listQuery(decl: ResourceDeclaration) {
  const filterProps: Record<string, TSchema> = {};
  for (const [name, f] of Object.entries(decl.filters ?? {}))
    filterProps[name] = Type.Optional({ ...f.schema, description: f.description } as TSchema);
  return Type.Object({
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
}

/** GET /rest/v1/<name>: one page of the rows the caller can see, filtered, searched, with the pagination headers. */
export function defineListRoute({ app, repository, decl, base, example }: ResourceRouteContext): void {
  const filters = decl.filters ?? {};
  const camel = decl.schemaName;
  const plural = camel.endsWith('y') ? `${camel.slice(0, -1)}ies` : `${camel}s`;
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
    query: listQuery(decl),
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
      // Why a transaction only for a search: it carries the search's own statement time limit.
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

/** GET /rest/v1/<name>/{id}: the row, or 404 when it does not exist or the caller may not see it. */
export function defineGetRoute({ app, repository, decl, base, example }: ResourceRouteContext): void {
  defineRestRoute(app, {
    method: 'get',
    path: `${base}/{id}`,
    operationId: decl.operationIds?.get ?? `get${decl.schemaName}`,
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
