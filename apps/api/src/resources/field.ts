import { Type, type TSchema } from 'typebox';
import { IsoDate, Timestamp, Uuid } from '@service/report-model';

/**
 * One API field of a resource: its column, its schema (from `@service/report-model` for domain
 * fields), and whether it can be set on create and changed on update. The resource's response,
 * create and update schemas, and the mapping between rows and JSON, are all derived from its fields.
 */
export interface Field {
  column: string;
  schema: TSchema;
  /** `required` or `optional` on create; absent = not settable on create. */
  create?: 'required' | 'optional';
  /** Changeable with PATCH. */
  update?: boolean;
  /** Stored as jsonb: serialised on write. */
  json?: boolean;
  /** Row value -> API value (default: Dates to ISO strings, as is otherwise). */
  read?: (value: unknown) => unknown;
  /**
   * The value is the id of a row of this table. A write naming a row that does not exist answers
   * 422 `invalid_reference` naming the field; `library` rows are never an external collaborator's.
   */
  references?: { table: string; label: string; library?: boolean };
}

export type Fields = Record<string, Field>;

const toIso = (v: unknown) => (v instanceof Date ? v.toISOString() : v);

/** id, createdAt, updatedAt: every resource has them. */
export const baseFields: Fields = {
  id: { column: 'id', schema: Uuid },
  createdAt: { column: 'created_at', schema: Timestamp },
  updatedAt: { column: 'updated_at', schema: Timestamp },
};

function isoDate(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return v ?? null;
}

/** A `date` column (no time) read as `YYYY-MM-DD`. */
export const dateField = (column: string, schema: TSchema = Type.Union([IsoDate, Type.Null()])): Field => ({
  column,
  schema,
  create: 'optional',
  update: true,
  read: isoDate,
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

export function rowToApi(fields: Fields, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(fields)) {
    const v = row[f.column];
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
