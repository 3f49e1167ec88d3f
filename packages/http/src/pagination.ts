import type { Context } from 'koa';
import { Type } from 'typebox';
import { externalOriginOf } from './external-origin.ts';

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;

/** `page` and `per_page` as every list accepts them; values above 100 are treated as 100. */
export const PaginationQuery = {
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1.' }),
  ),
  per_page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: DEFAULT_PER_PAGE,
      description:
        `Rows per page (default ${DEFAULT_PER_PAGE}); values above ${MAX_PER_PAGE} are ` +
        `treated as ${MAX_PER_PAGE}.`,
    }),
  ),
};

export interface Page {
  page: number;
  perPage: number;
  offset: number;
}

export function toPage(query: { page?: number; per_page?: number }): Page {
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}

export const PAGINATION_HEADERS = {
  'X-Total-Count': { description: 'Rows in all pages.', schema: { type: 'integer' } },
  'X-Page': { description: 'This page.', schema: { type: 'integer' } },
  'X-Per-Page': { description: 'Rows per page.', schema: { type: 'integer' } },
  'X-Total-Pages': { description: 'Number of pages.', schema: { type: 'integer' } },
  Link: {
    description:
      'RFC 8288 links with absolute URLs: `first`, `prev`, `next`, `last`, e.g. ' +
      '`<https://reports.example.com/rest/v1/clients?page=2&per_page=25>; rel="next"`. ' +
      'Behind a reverse proxy listed in `TRUST_PROXY`, the scheme and host are the ones ' +
      'the client used.',
    schema: { type: 'string' },
  },
};

/**
 * Sets the four X-* headers and a Link header with absolute URLs (so generic HTTP clients can follow
 * it) that keeps the request's other query parameters.
 */
export function setPaginationHeaders(ctx: Context, page: Page, total: number): void {
  const totalPages = Math.max(1, Math.ceil(total / page.perPage));
  ctx.set('X-Total-Count', String(total));
  ctx.set('X-Page', String(page.page));
  ctx.set('X-Per-Page', String(page.perPage));
  ctx.set('X-Total-Pages', String(totalPages));
  const origin = externalOriginOf(ctx);
  const link = (n: number, rel: string) => {
    const params = new URLSearchParams(ctx.querystring);
    params.set('page', String(n));
    params.set('per_page', String(page.perPage));
    return `<${origin}${ctx.path}?${params.toString()}>; rel="${rel}"`;
  };
  const links = [link(1, 'first')];
  if (page.page > 1) links.push(link(Math.min(page.page - 1, totalPages), 'prev'));
  if (page.page < totalPages) links.push(link(page.page + 1, 'next'));
  links.push(link(totalPages, 'last'));
  ctx.set('Link', links.join(', '));
}
