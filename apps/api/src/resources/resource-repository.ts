import { isDeepStrictEqual } from 'node:util';
import type { Knex } from 'knex';
import type { Action } from '@service/auth';
import { ConflictError, ForbiddenError, NotFoundError } from '@service/http';
import type { RestPrincipal } from '../rest/rest-pipeline.ts';
import { assertAllowed, grantFromLevel, WORKSPACE_WIDE, type RowAccess } from './access.ts';
import { apiToColumns, rowToApi, type Field, type Fields } from './field.ts';
import { invalidReference } from './invalid-reference.ts';
import type { ListFilter, ResourceDeclaration, Row } from './resource-declaration.ts';
import { countRows } from './select-page.ts';

export interface ListRequest {
  filters: Record<string, unknown>;
  q?: string;
  id?: string;
  updatedSince?: string;
  offset: number;
  limit: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A list's order: a column, or an expression (search ranks), and its direction. */
type OrderKey = [string | Knex.Raw, 'asc' | 'desc'];
/** Words of a search as a prefix query for the `simple` text configuration: "sql inj" -> sql:* & inj:*. */
export function toPrefixQuery(q: string): string | null {
  const words =
    q
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu)
      ?.slice(0, 16) ?? [];
  return words.length > 0 ? words.map((w) => `${w}:*`).join(' & ') : null;
}

/** 409 `conflict` when a row's `updatedAt` is not the one the caller read (when it gave one). */
export function assertUnchangedSince(label: string, updatedAt: Date, expected: string | undefined): void {
  if (expected === undefined || updatedAt.getTime() === new Date(expected).getTime()) return;
  throw new ConflictError(
    `The ${label} was changed since ${expected}; read it again and reapply your change.`,
    'conflict',
    [
      {
        path: '/expectedUpdatedAt',
        message: 'the row has changed since; this is its current updatedAt',
        value: updatedAt.toISOString(),
      },
    ],
  );
}

/** updated_at always moves forward, even for two writes within one millisecond. */
export function nextUpdatedAt(db: Knex, alias = ''): Knex.Raw {
  const col = alias ? `${alias}.updated_at` : 'updated_at';
  return db.raw(`greatest(date_trunc('milliseconds', clock_timestamp()), ${col} + interval '1 millisecond')`);
}

/**
 * The tenant SQL of one resource, with the caller's visibility applied as query conditions on
 * every read and write: a row the caller may not see is never loaded, and every write checks
 * the policy on the row it locked, in the same transaction.
 */
export class ResourceRepository<F extends Fields = Fields, X extends object = object> {
  readonly label: string;
  private readonly columns: string[];
  private readonly order: OrderKey[];
  private readonly filters: Record<string, ListFilter>;

  constructor(readonly declaration: ResourceDeclaration<F, X>) {
    this.label = declaration.label;
    this.order = declaration.order ?? [['r.created_at', 'asc']];
    this.filters = declaration.filters ?? {};
    this.columns = [
      ...new Set([
        ...Object.values(declaration.fields)
          .map((f) => f.column)
          .filter((c) => !c.startsWith('_')),
        ...(declaration.internalColumns ?? []),
      ]),
    ];
  }

  get table(): string {
    return this.declaration.table;
  }

  /**
   * `select r.<columns>, <client> as _client_id, <grant> as _grant from <table> r ...` limited to what the caller may
   * see.
   */
  scoped(db: Knex, principal: RestPrincipal, opts: { trashed?: boolean } = {}): Knex.QueryBuilder {
    const v = this.declaration.visibility;
    const q = db(`${this.table} as r`);
    v.join(q, db);
    for (const alias of v.alive) {
      if (alias === 'r' && opts.trashed) continue;
      q.whereNull(`${alias}.deleted_at`);
    }
    if (opts.trashed) q.whereNotNull('r.deleted_at');
    q.select(
      ...this.columns.map((c) => `r.${c}`),
      db.raw(`${v.clientSql ?? 'null::uuid'} as _client_id`),
      ...(this.declaration.extraSelect?.(db, principal) ?? []),
    );
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

  access(row: Row<F, X>): RowAccess {
    const v = this.declaration.visibility;
    if (v.grantSql === null && v.clientSql === null) return WORKSPACE_WIDE;
    return { clientId: row._client_id, grant: grantFromLevel(row._grant) };
  }

  present(row: Row<F, X>): Record<string, unknown> {
    const api = rowToApi(this.declaration.fields, row);
    return this.declaration.present ? { ...api, ...this.declaration.present(row, api) } : api;
  }

  async list(db: Knex, principal: RestPrincipal, req: ListRequest): Promise<{ rows: Row<F, X>[]; total: number }> {
    const ordered = await this.listOrdered(db, principal, req);
    if (ordered) return ordered;
    const q = this.scoped(db, principal);
    if (req.id) q.where('r.id', req.id);
    if (req.updatedSince) q.where('r.updated_at', '>=', new Date(req.updatedSince));
    // Words match as prefixes, identifiers (CVE-2024-1007, 10.0.0.5, /api/v1) as typed; the
    // tenant migration "identifier_search" defines both sides. A `q` with no letter or digit matches nothing.
    let order: OrderKey[] = this.order;
    if (req.q && this.declaration.searchable !== false) {
      const search = this.declaration.search;
      const queries = [req.q, ...(search?.alternatives?.(req.q) ?? [])];
      const query = `(${queries.map(() => 'search_query(?)').join(' || ')})`;
      q.whereRaw(`r.search @@ ${query}`, queries);
      // Why: the row whose title says what was searched comes before rows that only mention it,
      // and a title that starts with it first of all (`sql`: SQL injection before Microsoft SQL Server).
      if (search?.rankFirst)
        order = [
          [db.raw(`search_words(??) @@ ${query}`, [search.rankFirst, ...queries]), 'desc'],
          [db.raw(`lower(??) like lower(?) || '%'`, [search.rankFirst, req.q.trim()]), 'desc'],
          ...order,
        ];
    }
    for (const [name, value] of Object.entries(req.filters)) {
      if (value === undefined) continue;
      const filter = this.filters[name]!;
      filter.apply(q, value as never, db, req.filters);
      if (filter.order) order = filter.order;
    }
    // Why: the page is chosen on narrow rows (id and order keys, with the total from one window
    // pass), and only that page's full rows are read, in the same statement: sorting and counting
    // thousands of wide rows, or a second round trip, is what costs. The order keys travel out of
    // the page as `_k0`, `_k1`, ... since they may come from a joined table.
    const page = q
      .clone()
      .clearSelect()
      .select(
        'r.id',
        ...order.map(([col], i) =>
          typeof col === 'string' ? db.raw('?? as ??', [col, `_k${i}`]) : db.raw('? as ??', [col, `_k${i}`]),
        ),
        db.raw('count(*) over() as _total'),
      );
    for (const [i, [, dir]] of order.entries()) page.orderBy(`_k${i}`, dir);
    page.orderBy('r.id', 'asc').offset(req.offset).limit(req.limit);
    const full = this.scoped(db, principal).join(page.as('page'), 'page.id', 'r.id').select('page._total');
    for (const [i, [, dir]] of order.entries()) full.orderBy(`page._k${i}`, dir);
    full.orderBy('r.id', 'asc');
    const rows = (await full) as Array<Row<F, X> & { _total: number }>;
    let total = rows[0]?._total ?? 0;
    if (rows.length === 0 && req.offset > 0) total = await countRows(q);
    return { rows, total: Number(total) };
  }

  /**
   * A list filtered only by a parent that keeps its rows in order (a report's findings): the page
   * is read from the parent's (parent, position) index and the total counted on it, when the
   * caller may see every row of the parent. Null when the general path must answer.
   */
  private async listOrdered(
    db: Knex,
    principal: RestPrincipal,
    req: ListRequest,
  ): Promise<{ rows: Row<F, X>[]; total: number } | null> {
    if (req.q || req.id || req.updatedSince) return null;
    const given = Object.entries(req.filters).filter(([, v]) => v !== undefined);
    const [name, parentId] = given.length === 1 ? given[0]! : [];
    const ordered = name ? this.filters[name]?.ordered : undefined;
    if (!ordered || typeof parentId !== 'string') return null;
    const visible = await ordered.visible(db, principal, parentId);
    if (visible === 'none') return { rows: [], total: 0 };
    if (visible === 'some') return null;
    const { table, parentColumn, rowColumn, positionColumn, count } = ordered;
    const page = db(table)
      .where(parentColumn, parentId)
      .select({ id: rowColumn, _position: positionColumn })
      .orderBy([positionColumn, rowColumn])
      .offset(req.offset)
      .limit(req.limit);
    const total = db.raw('coalesce((?), 0)', [
      db(count.table).where(count.parentColumn, parentId).select(count.column),
    ]);
    const rows = (await this.scoped(db, principal)
      .join(page.as('page'), 'page.id', 'r.id')
      .select(db.raw('? as _total', [total]))
      .orderBy([{ column: 'page._position' }, { column: 'r.id' }])) as Array<Row<F, X> & { _total: number }>;
    if (rows.length > 0) return { rows, total: Number(rows[0]!._total) };
    const [{ n }] = (await db.select(db.raw('? as n', [total]))) as [{ n: number }];
    return { rows, total: Number(n) };
  }

  async find(
    db: Knex,
    principal: RestPrincipal,
    id: string,
    opts: { trashed?: boolean; forUpdate?: boolean } = {},
  ): Promise<Row<F, X> | null> {
    if (!UUID.test(id)) return null;
    const q = this.scoped(db, principal, opts).where('r.id', id).first();
    if (opts.forUpdate) q.forUpdate('r');
    return ((await q) as Row<F, X> | undefined) ?? null;
  }

  /** The visible row, after checking the caller may do `action` on it; 404 when not visible. */
  async require(
    db: Knex,
    principal: RestPrincipal,
    id: string,
    action: Action,
    opts: { trashed?: boolean; forUpdate?: boolean } = {},
  ): Promise<Row<F, X>> {
    const row = await this.find(db, principal, id, opts);
    if (!row) throw new NotFoundError(`The ${this.label} ${id} was not found.`);
    assertAllowed(principal, action, this.access(row), this.label);
    return row;
  }

  /**
   * Creates a row from API input in the caller's transaction: the parent is resolved and
   * checked, the row inserted and the declaration's follow-up run, all or nothing.
   */
  async create(trx: Knex.Transaction, principal: RestPrincipal, input: Record<string, unknown>): Promise<Row<F, X>> {
    const create = this.declaration.create;
    if (!create) throw new Error(`${this.label}: no create declared`);
    this.declaration.checkInput?.(input);
    this.declaration.checkRow?.(input, input);
    const ctx = { trx, principal, input };
    const parent = create.resolveParent ? await create.resolveParent(ctx) : { access: WORKSPACE_WIDE };
    assertAllowed(principal, parent.action ?? 'create', parent.access, this.label);
    await this.checkReferences(trx, principal, input);
    const [row] = await trx(this.table)
      .insert({
        ...apiToColumns(this.declaration.fields, input, (f: Field) => f.create !== undefined),
        ...parent.columns,
        created_by: principal.userId,
      })
      .returning('*');
    await create.afterInsert?.({ ...ctx, row });
    return (await this.find(trx, principal, row.id))!;
  }

  /**
   * Ids in a body that name other rows (a report's style, a style's logo) must name rows that
   * exist, and library rows are never an external collaborator's: both answer the same 422.
   */
  private async checkReferences(trx: Knex, principal: RestPrincipal, input: Record<string, unknown>): Promise<void> {
    for (const [name, field] of Object.entries(this.declaration.fields)) {
      const id = input[name];
      if (!field.references || typeof id !== 'string') continue;
      const { table, label, library } = field.references;
      const exists =
        !(library && principal.role === 'external') &&
        UUID.test(id) &&
        (await trx(table).where({ id }).first('id')) !== undefined;
      if (!exists) throw invalidReference(name, `The ${label} ${id} does not exist or is not visible to you.`);
    }
  }

  /**
   * Changes a row. One transaction: the visible row is locked, the policy checked on it, the
   * optimistic-concurrency check made against the locked version, then the update. A change
   * that sets every field to the value it has writes nothing and leaves `updatedAt` as it was.
   */
  async update(
    db: Knex,
    principal: RestPrincipal,
    id: string,
    changes: Record<string, unknown>,
    opts: { expectedUpdatedAt?: string } = {},
  ): Promise<Row<F, X>> {
    this.declaration.checkInput?.(changes);
    return db.transaction(async (trx) => {
      if (UUID.test(id)) await this.declaration.lockFirst?.(trx, id, changes);
      const row = await this.require(trx, principal, id, 'update', { forUpdate: true });
      assertUnchangedSince(this.label, row.updated_at, opts.expectedUpdatedAt);
      await this.checkReferences(trx, principal, changes);
      const current = this.present(row);
      const requested = Object.fromEntries(
        Object.entries(changes).filter(([k, v]) => v !== undefined && !isDeepStrictEqual(current[k], v)),
      );
      if (Object.keys(requested).length === 0) return row;
      this.declaration.checkRow?.({ ...current, ...requested }, requested);
      const changed = (await this.declaration.beforeUpdate?.({ trx, row, changed: requested })) ?? requested;
      await trx(this.table)
        .where({ id })
        .update({
          ...apiToColumns(this.declaration.fields, changed, (f) => f.update === true),
          updated_at: nextUpdatedAt(trx),
        });
      await this.declaration.afterUpdate?.({ trx, principal, row, changed, sent: changes });
      return (await this.find(trx, principal, id))!;
    });
  }

  /**
   * True when the caller moved this row to the trash themselves and may still delete it: a repeated
   * DELETE then answers as the first did. Anyone else gets the 404 of a row they cannot see.
   */
  private async trashedByCaller(db: Knex, principal: RestPrincipal, id: string): Promise<boolean> {
    if (!this.declaration.trash || !UUID.test(id)) return false;
    const row = (await this.scoped(db, principal, { trashed: true })
      .where('r.id', id)
      .where('r.deleted_by', principal.userId)
      .first()) as Row<F, X> | undefined;
    if (!row) return false;
    assertAllowed(principal, 'delete', this.access(row), this.label);
    return true;
  }

  /**
   * Deletes a row (into the trash when the resource has one), with the row locked and the policy
   * checked in the same transaction; file cleanup runs after the commit. Deleting a row the caller
   * already moved to the trash changes nothing and succeeds again (see trashedByCaller).
   */
  async remove(db: Knex, principal: RestPrincipal, id: string): Promise<void> {
    const afterCommit = await db.transaction(async (trx) => {
      if (UUID.test(id)) await this.declaration.lockFirst?.(trx, id, null);
      const row = await this.find(trx, principal, id, { forUpdate: true });
      if (!row) {
        // Why: a DELETE sent again after its answer was lost must not report failure after success.
        if (await this.trashedByCaller(trx, principal, id)) return undefined;
        throw new NotFoundError(`The ${this.label} ${id} was not found.`);
      }
      assertAllowed(principal, 'delete', this.access(row), this.label);
      // Why: an external collaborator changes what is inside a shared project or report, but the
      // shared project or report itself (and the trash, which only administrators empty) is not theirs.
      if (this.declaration.trash && principal.role === 'external') {
        throw new ForbiddenError('forbidden', `External collaborators cannot move a ${this.label} to the trash.`);
      }
      const cleanup = await this.declaration.beforeDelete?.(trx, row, principal);
      if (this.declaration.trash) {
        await trx(this.table)
          .where({ id })
          .update({ deleted_at: trx.fn.now(3), deleted_by: principal.userId });
        return undefined;
      }
      await trx(this.table).where({ id }).delete();
      return cleanup ?? undefined;
    });
    if (afterCommit) await afterCommit();
  }
}
