import type { Knex } from 'knex';
import type { TSchema } from 'typebox';
import type { Action } from '@service/auth';
import type { RestPrincipal } from '../rest/rest-pipeline.ts';
import type { RowAccess } from './access.ts';
import type { Fields, RowOf } from './field.ts';
import type { Visibility } from './visibility.ts';

/** What every read adds to a row: who owns it (`_client_id`) and an external caller's grant level. */
export interface RowMeta {
  id: string;
  created_at: Date;
  updated_at: Date;
  _client_id: string | null;
  _grant: number | null;
}

/**
 * A row as repositories read it: the columns its fields declare, with their types, the extra
 * columns `X` the declaration reads besides (internal and computed columns), and the meta columns.
 */
export type Row<F extends Fields = Fields, X extends object = object> = RowOf<F> & X & RowMeta;

export interface ListFilter {
  schema: TSchema;
  description: string;
  /** `filters` holds every filter value of the request (a filter may depend on another: report_id). */
  apply(q: Knex.QueryBuilder, value: never, db: Knex, filters: Record<string, unknown>): void;
  /** The order of a list with this filter (instead of the declaration's); `r.id` always breaks ties. */
  order?: Array<[string, 'asc' | 'desc']>;
  /** The filter names a parent that keeps these rows in an order of its own (below). */
  ordered?: OrderedMembership;
}

/**
 * Rows a parent keeps in its own order through a table with an index on (parent, position), as a
 * report keeps its findings in `report_findings`. A list filtered by the parent alone is paged
 * on that index and counted on it, so a page costs the same whatever the parent holds, as long
 * as the caller may see every row of the parent (otherwise the general path checks each row).
 */
export interface OrderedMembership {
  table: string;
  parentColumn: string;
  rowColumn: string;
  positionColumn: string;
  /** Where the number of rows of each parent is kept (a table with one row per parent, kept by triggers). */
  count: { table: string; parentColumn: string; column: string };
  /** `all` when every row of the parent is visible to the caller, `none` when none is, else `some`. */
  visible(db: Knex, principal: RestPrincipal, parentId: string): Promise<'all' | 'none' | 'some'>;
}

export interface CreateContext {
  trx: Knex.Transaction;
  principal: RestPrincipal;
  input: Record<string, unknown>;
}

/** Where a new row goes: who owns it (for the policy), the action to check, and column values derived from it. */
export interface ParentResolution {
  access: RowAccess;
  /**
   * Default `create`. Adding something to an existing report edits that report (DESIGN "Access"),
   * so children of a report check `update` on it, which the key's client allow-list guards.
   */
  action?: Action;
  columns?: Record<string, unknown>;
}

/**
 * One REST resource, declared once: its table, fields, visibility and rules. The repository
 * reads and writes rows from it; `defineResource` builds the routes and OpenAPI entries from it.
 */
export interface ResourceDeclaration<F extends Fields = Fields, X extends object = object> {
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
  fields: F;
  order?: Array<[string, 'asc' | 'desc']>;
  filters?: Record<string, ListFilter>;
  searchable?: boolean;
  /**
   * How `q` searches beyond the words typed: alternative queries that also match (abbreviations
   * spelt out), and a column whose match ranks a row first (a title match before a text match).
   */
  search?: { alternatives?: (q: string) => string[]; rankFirst?: string };
  /** Deleted into the trash (restorable) instead of permanently. */
  trash?: boolean;
  /** PATCH accepts `expectedUpdatedAt`. */
  concurrency?: boolean;
  /** Operations offered; default all five. */
  operations?: Partial<Record<'list' | 'get' | 'create' | 'update' | 'delete', boolean>>;
  /**
   * An operation id other than the derived one (`createClient`), for a name that client generators
   * use themselves: the SDK function of the operation would collide with the generator's own.
   */
  operationIds?: Partial<Record<'list' | 'get' | 'create' | 'update' | 'delete', string>>;
  create?: {
    /** Body fields beyond the resource's own (e.g. `reportId` for findings, `templateId` for reports). */
    extra?: Record<string, TSchema>;
    /**
     * JSON Schema rules on the body as a whole that the validator enforces and the document
     * states, e.g. `anyOf: [{ required: ['projectId'] }, { required: ['reportId'] }]`.
     */
    bodyRules?: { anyOf?: Array<{ required: string[] }>; oneOf?: Array<{ required: string[] }> };
    /** A request body as a client would send it; the response example is derived from it. */
    example: Record<string, unknown>;
    /** Checks the parent the new row goes under. Without it the row is workspace-level (clients, libraries). */
    resolveParent?(ctx: CreateContext): Promise<ParentResolution>;
    /** Runs in the same transaction after the insert (e.g. copy a template's tabs, attach to a report). */
    afterInsert?(ctx: CreateContext & { row: RowOf<F> & X & { id: string } }): Promise<void>;
    /** Answers of the create besides the automatic ones, by status (joined to the idempotency answers). */
    responses?: Record<number, string>;
  };
  /**
   * Runs in the delete's transaction with the row locked, before a permanent delete or a trash:
   * may refuse (throw) and may return a step to run once the delete has committed (remove files).
   */
  beforeDelete?(trx: Knex.Transaction, row: Row<F, X>, principal: RestPrincipal): Promise<(() => Promise<void>) | void>;
  /**
   * Checks of values the schema cannot express (a title pattern that does not compile), run on
   * create and update bodies; throws a 400 naming the field.
   */
  checkInput?(input: Record<string, unknown>): void;
  /**
   * Checks of the row as it would be after a create or an update (fields as the API names them;
   * on create only those given), for rules between fields: throws a 400 naming the field.
   * `changed` holds the fields the request changes.
   */
  checkRow?(next: Record<string, unknown>, changed: Record<string, unknown>): void;
  /**
   * Locks, before the row itself, what changing or deleting the row must wait for (the reports
   * whose finding order it changes), so every writer takes its locks in one order. `changes` is
   * the PATCH body, null for a delete. The id may name no visible row: the lock must reveal nothing.
   */
  lockFirst?(trx: Knex.Transaction, id: string, changes: Record<string, unknown> | null): Promise<void>;
  /**
   * Runs in the update's transaction with the row locked, before the change is written; returns
   * the changes as they are to be written (a position kept within the list, after the rows between
   * moved). `changed` holds only the fields whose value changes.
   */
  beforeUpdate?(ctx: {
    trx: Knex.Transaction;
    row: Row<F, X>;
    changed: Record<string, unknown>;
  }): Promise<Record<string, unknown>>;
  /** Runs in the update's transaction after a change was written (e.g. keep a report's order). */
  afterUpdate?(ctx: {
    trx: Knex.Transaction;
    principal: RestPrincipal;
    row: Row<F, X>;
    changed: Record<string, unknown>;
    /** Every field the request sent, changed or not. */
    sent: Record<string, unknown>;
  }): Promise<void>;
  /**
   * The documented example of a resource without create: the values worth showing; every other
   * field is generated from its schema (`resource-example.ts`).
   */
  responseExample?: Record<string, unknown>;
  /** A PATCH body as a client would send it, for the document (none: no request example). */
  updateExample?: Record<string, unknown>;
  /** Extra response fields computed from the row. */
  present?(row: Row<F, X>, api: Record<string, unknown>): Record<string, unknown>;
  extraResponse?: Record<string, TSchema>;
  /** Computed columns added to every read (for `present`); may depend on who reads. */
  extraSelect?: (db: Knex, principal: RestPrincipal) => Knex.Raw[];
  /** Table columns read besides the fields' own (e.g. a storage key used by handlers). */
  internalColumns?: readonly string[];
}

/**
 * Declares a resource with its row type derived from its fields: `X` names the columns it reads
 * besides (internal columns and computed ones from `extraSelect`). Curried so that `X` can be
 * given while the fields are inferred: `declareResource<{ storage_key: string }>()({ ... })`.
 */
export function declareResource<X extends object = object>() {
  return <const F extends Fields>(
    declaration: ResourceDeclaration<F, X> & { internalColumns?: ReadonlyArray<keyof X & string> },
  ): ResourceDeclaration<F, X> => declaration;
}
