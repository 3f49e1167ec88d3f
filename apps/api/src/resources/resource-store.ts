import type { Knex } from 'knex';
import type { TSchema } from 'typebox';
import type { Action } from '@service/auth';
import { NotFoundError } from '@service/http';
import type { RestPrincipal } from '../rest/rest-pipeline.ts';
import { assertAllowed, grantFromLevel, type RowAccess } from './access.ts';
import { countRows } from './select-page.ts';
import type { Visibility } from './visibility.ts';

export type Row = Record<string, unknown> & { id: string; _client_id: string | null; _grant: number | null };

export interface ListFilter {
  schema: TSchema;
  description: string;
  apply(q: Knex.QueryBuilder, value: never, db: Knex): void;
}

export interface ListRequest {
  filters: Record<string, unknown>;
  q?: string;
  id?: string;
  updatedSince?: string;
  offset: number;
  limit: number;
}

/** Words of a search as a prefix query for the `simple` text configuration: "sql inj" -> sql:* & inj:*. */
export function toPrefixQuery(q: string): string | null {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu)?.slice(0, 16) ?? [];
  return words.length > 0 ? words.map((w) => `${w}:*`).join(' & ') : null;
}

/**
 * Reads of one resource with visibility applied as query conditions. Every read goes through
 * `scoped`, so a row the caller may not see is never loaded.
 */
export class ResourceStore {
  constructor(
    readonly table: string,
    readonly visibility: Visibility,
    readonly options: {
      label: string;
      trash?: boolean;
      order: Array<[string, 'asc' | 'desc']>;
      filters: Record<string, ListFilter>;
      searchable: boolean;
      /** Extra computed columns, e.g. a finding's report ids. */
      extraSelect?: (db: Knex) => Knex.Raw[];
      /** Columns of `r` to read; default all. Narrow reads keep large columns (search vectors) off the wire. */
      columns?: string[];
    },
  ) {}

  /** `select r.*, <client> as _client_id, <grant> as _grant from <table> r ...` limited to what the caller may see. */
  scoped(db: Knex, principal: RestPrincipal, opts: { trashed?: boolean } = {}): Knex.QueryBuilder {
    const v = this.visibility;
    const q = db(`${this.table} as r`);
    v.join(q, db);
    for (const alias of v.alive) {
      if (alias === 'r' && opts.trashed) continue;
      q.whereNull(`${alias}.deleted_at`);
    }
    if (opts.trashed) q.whereNotNull('r.deleted_at');
    q.select(...this.columnList(), db.raw(`${v.clientSql ?? 'null::uuid'} as _client_id`), ...(this.options.extraSelect?.(db) ?? []));
    if (principal.role === 'external') {
      if (!v.grantSql) {
        q.whereRaw('false');
        q.select(db.raw('null as _grant'));
      } else {
        q.select(db.raw(`${v.grantSql} as _grant`, { uid: principal.userId }));
        q.whereRaw(`${v.grantSql} is not null`, { uid: principal.userId });
      }
    } else {
      q.select(db.raw('null as _grant'));
    }
    return q;
  }

  private columnList(): string[] {
    return this.options.columns ? this.options.columns.map((c) => `r.${c}`) : ['r.*'];
  }

  access(row: Row): RowAccess {
    return { clientId: row._client_id, grant: grantFromLevel(row._grant), workspaceWide: this.visibility.grantSql === null && this.visibility.clientSql === null };
  }

  async list(db: Knex, principal: RestPrincipal, req: ListRequest): Promise<{ rows: Row[]; total: number }> {
    const q = this.scoped(db, principal);
    if (req.id) q.where('r.id', req.id);
    if (req.updatedSince) q.where('r.updated_at', '>=', new Date(req.updatedSince));
    if (req.q && this.options.searchable) {
      const tsquery = toPrefixQuery(req.q);
      if (tsquery) q.whereRaw(`r.search @@ to_tsquery('simple', ?)`, [tsquery]);
      else q.whereRaw('false');
    }
    for (const [name, value] of Object.entries(req.filters)) {
      if (value !== undefined) this.options.filters[name]!.apply(q, value as never, db);
    }
    // Why: the page is chosen on narrow rows (id and order keys, with the total from one window
    // pass), and only that page's full rows are read, in the same statement: sorting and counting
    // thousands of wide rows, or a second round trip, is what costs.
    const page = q.clone().clearSelect().select('r.id', db.raw('count(*) over() as _total'));
    for (const [col, dir] of this.options.order) page.orderBy(col, dir);
    page.orderBy('r.id', 'asc').offset(req.offset).limit(req.limit);
    const full = this.scoped(db, principal).join(page.as('page'), 'page.id', 'r.id').select('page._total');
    for (const [col, dir] of this.options.order) full.orderBy(col, dir);
    full.orderBy('r.id', 'asc');
    const rows = (await full) as Array<Row & { _total: number }>;
    let total = rows[0]?._total ?? 0;
    if (rows.length === 0 && req.offset > 0) total = await countRows(q);
    return { rows, total: Number(total) };
  }

  async find(db: Knex, principal: RestPrincipal, id: string, opts: { trashed?: boolean; forUpdate?: boolean } = {}): Promise<Row | null> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
    const q = this.scoped(db, principal, opts).where('r.id', id).first();
    if (opts.forUpdate) q.forUpdate('r');
    return ((await q) as Row | undefined) ?? null;
  }

  /** The visible row, after checking the caller may do `action` on it; 404 when not visible. */
  async require(db: Knex, principal: RestPrincipal, id: string, action: Action, opts: { trashed?: boolean; forUpdate?: boolean } = {}): Promise<Row> {
    const row = await this.find(db, principal, id, opts);
    if (!row) throw new NotFoundError(`The ${this.options.label} ${id} was not found.`);
    assertAllowed(principal, action, this.access(row), this.options.label);
    return row;
  }
}
