import { Type, type Static, type TSchema } from 'typebox';
import { Timestamp, Uuid } from '@service/report-model';

/**
 * One API field of a resource: its column, its schema (from `@service/report-model` for domain
 * fields), and whether it can be set on create and changed on update. The resource's response,
 * create and update schemas, its row type, and the mapping between rows and JSON, are all derived
 * from its fields.
 */
export interface Field<S extends TSchema = TSchema, V = unknown> {
  column: string;
  schema: S;
  /** `required` or `optional` on create; absent = not settable on create. */
  create?: 'required' | 'optional';
  /** Changeable with PATCH. */
  update?: boolean;
  /** Stored as jsonb: serialised on write. */
  json?: boolean;
  /** Row value -> API value (default: Dates to ISO strings, as is otherwise). */
  read?: (value: V) => unknown;
  /**
   * The value is the id of a row of this table. A write naming a row that does not exist answers
   * 422 `invalid_reference` naming the field; `library` rows are never an external collaborator's.
   */
  references?: { table: string; label: string; library?: boolean };
  /**
   * Only a type: the column's value as the database driver reads it, when that is not the schema's
   * type (a timestamp column reads as a Date, the API writes an ISO string).
   */
  rowValue?: V;
}

// biome-ignore lint/suspicious/noExplicitAny: any is what lets every field's own schema and row type through.
export type Fields = Record<string, Field<any, any>>;

/** The value a field's column holds when read: its declared row value, else its schema's type. */
export type RowValueOf<F> = F extends { rowValue?: infer V }
  ? 'rowValue' extends keyof F
    ? V
    : F extends { schema: infer S extends TSchema }
      ? Static<S>
      : never
  : never;

/** A row of a resource's table as its fields declare it: each column with its type. */
export type RowOf<F extends Fields> = { [K in keyof F as F[K]['column']]: RowValueOf<F[K]> };

/** A column whose row value differs from its schema's type (set `rowValue` for the type only). */
function rowTyped<V>() {
  return <C extends string, S extends TSchema>(field: Omit<Field<S, V>, 'rowValue'> & { column: C }) =>
    field as typeof field & { rowValue?: V };
}

const toIso = (v: unknown) => (v instanceof Date ? v.toISOString() : v);

/** A timestamp column (`timestamptz`): a Date in the row, an ISO string in the API. */
export const timestampField = <C extends string>(column: C, schema: TSchema = Timestamp) =>
  rowTyped<Date>()({ column, schema });

/** A nullable timestamp column. */
export const nullableTimestampField = <C extends string>(column: C, schema: TSchema) =>
  rowTyped<Date | null>()({ column, schema });

/** id, createdAt, updatedAt: every resource has them. */
export const baseFields = {
  id: { column: 'id' as const, schema: Uuid },
  createdAt: timestampField('created_at'),
  updatedAt: timestampField('updated_at'),
};

/** A `date` column (no time): the driver reads it as `YYYY-MM-DD` text (`@service/db`), as the API writes it. */
export const dateField = <C extends string, S extends TSchema>(column: C, schema: S) => ({
  column,
  schema,
  create: 'optional' as const,
  update: true,
});

export function responseSchema(fields: Fields, extra: Record<string, TSchema> = {}) {
  return Type.Object({ ...Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.schema])), ...extra });
}

export function createSchema(fields: Fields, extra: Record<string, TSchema> = {}, rules: Record<string, unknown> = {}) {
  const props: Record<string, TSchema> = {};
  for (const [k, f] of Object.entries(fields)) {
    if (f.create === 'required') props[k] = f.schema;
    else if (f.create === 'optional') props[k] = Type.Optional(f.schema);
  }
  return Type.Object({ ...props, ...extra }, { additionalProperties: false, ...rules });
}

export function updateSchema(fields: Fields, extra: Record<string, TSchema> = {}) {
  const props: Record<string, TSchema> = {};
  for (const [k, f] of Object.entries(fields)) if (f.update) props[k] = Type.Optional(f.schema);
  return Type.Object({ ...props, ...extra }, { additionalProperties: false, minProperties: 1 });
}

/** The names of the fields PATCH accepts: a GET body restricted to these can be sent back. */
export function updatableFieldNames(fields: Fields): string[] {
  return Object.entries(fields)
    .filter(([, f]) => f.update)
    .map(([k]) => k);
}

export function rowToApi(fields: Fields, row: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(fields)) {
    const v = (row as Record<string, unknown>)[f.column];
    out[k] = f.read ? f.read(v) : toIso(v ?? null);
  }
  return out;
}

/** API input -> column values for the given fields, skipping undefined. */
export function apiToColumns(
  fields: Fields,
  input: Record<string, unknown>,
  allowed: (f: Field) => boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    const f = fields[k];
    if (!f || v === undefined || !allowed(f)) continue;
    out[f.column] = f.json ? JSON.stringify(v) : v;
  }
  return out;
}
