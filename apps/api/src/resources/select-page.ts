import type { Knex } from 'knex';

export interface PageRequest {
  offset: number;
  limit: number;
  order: Array<[string, 'asc' | 'desc']>;
}

/** Rows of `q` without its selection, ordering or paging: the total a list reports. */
export async function countRows(q: Knex.QueryBuilder): Promise<number> {
  const [{ n }] = (await q.clone().clearSelect().clearOrder().count({ n: '*' })) as [{ n: number }];
  return Number(n);
}

/**
 * One page of `q` with the total from the same statement (a window count); only a page past the
 * end needs a second query for the total.
 */
export async function selectPage<T extends object>(
  db: Knex,
  q: Knex.QueryBuilder,
  columns: Array<string | Knex.Raw>,
  page: PageRequest,
): Promise<{ rows: T[]; total: number }> {
  const paged = q.clone().select(...columns, db.raw('count(*) over() as _total'));
  for (const [col, dir] of page.order) paged.orderBy(col, dir);
  const rows = (await paged.offset(page.offset).limit(page.limit)) as Array<T & { _total: number }>;
  const total = rows.length > 0 ? Number(rows[0]!._total) : page.offset > 0 ? await countRows(q) : 0;
  return { rows, total };
}
