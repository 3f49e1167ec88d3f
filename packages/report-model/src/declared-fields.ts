import type { Static, TSchema } from 'typebox';

/**
 * One field of a domain shape (a finding, a report, a tab, a link, a project), declared once: its
 * schema, the column that holds it, its shape and its label. Each path that carries the shape
 * (API rows, Markdown, CSV, both DOCX renderers, imports) handles every shape of its kind in an
 * exhaustive `switch`, so a field of a known shape travels everywhere by itself and a new shape is
 * a compile error in each path until it is handled there. Kinds add what only they need (a
 * finding field's `part`, a report field's `retest`).
 */
export interface FieldDeclaration<S extends TSchema = TSchema, C extends string = string, H extends string = string> {
  /** The value's schema: what the API, the OpenAPI document and every import validate. */
  schema: S;
  /** The column of the shape's table that holds it. */
  column: C;
  /** `jsonb` columns are written as JSON text; other columns (text, enum, date, arrays) as the value. */
  storage: 'value' | 'jsonb';
  shape: H;
  /** What a person reads: a heading, a column, a label in a document (English). */
  label: string;
  /** The value of a row that does not set it. */
  empty(): Static<S>;
  /** Must be given when a row is created through the API. */
  required?: true;
  /** Set when a row is created, never changed by PATCH. */
  immutable?: true;
}

export type FieldDeclarations = Record<string, FieldDeclaration>;

/** The values of the declared fields, each typed by its schema. */
export type FieldValues<F extends FieldDeclarations> = { [K in keyof F]: Static<F[K]['schema']> };
/** The schemas of the declared fields, property by property (for `Type.Object`). */
export type FieldSchemas<F extends FieldDeclarations> = { [K in keyof F]: F[K]['schema'] };
export type FieldColumnName<F extends FieldDeclarations> = F[keyof F]['column'];
/** A row's field columns as the database driver reads them (jsonb parsed, arrays as arrays, dates as text). */
export type FieldColumns<F extends FieldDeclarations> = { [K in keyof F as F[K]['column']]: Static<F[K]['schema']> };

/** Everything the rest of the code derives from a set of declared fields. */
export interface DeclaredFields<F extends FieldDeclarations> {
  readonly declarations: F;
  /** Every field name, in declaration order. */
  readonly names: ReadonlyArray<keyof F & string>;
  readonly entries: ReadonlyArray<readonly [keyof F & string, F[keyof F]]>;
  /** Every column, in declaration order. */
  readonly columns: ReadonlyArray<FieldColumnName<F>>;
  readonly properties: FieldSchemas<F>;
  /** A row's values when nothing is set. */
  empty(): FieldValues<F>;
  /** The declared fields of a larger object (a whole document, a row as the API returns it). */
  pick(values: FieldValues<F>): FieldValues<F>;
  /**
   * Column values to insert or update for the fields given; absent fields are left out. jsonb
   * columns are JSON text for knex (`jsonb: 'text'`), or the value itself inside a JSON document
   * that PostgreSQL reads as rows (`jsonb: 'value'`).
   */
  toColumns(
    values: Partial<FieldValues<F>>,
    options?: { jsonb?: 'text' | 'value' },
  ): Partial<Record<FieldColumnName<F>, unknown>>;
  /** Every field read from its row. */
  fromColumns(row: FieldColumns<F>): FieldValues<F>;
  /** The same for some of the fields, in declaration order. */
  only<K extends keyof F & string>(names: readonly K[]): DeclaredFields<Pick<F, K>>;
}

/** The mechanism behind every declaration: schemas, empty values and row maps, derived once. */
export function declareFields<const F extends FieldDeclarations>(declarations: F): DeclaredFields<F> {
  type Name = keyof F & string;
  const entries = Object.entries(declarations) as Array<[Name, F[Name]]>;
  return {
    declarations,
    names: entries.map(([name]) => name),
    entries,
    columns: entries.map(([, f]) => f.column as FieldColumnName<F>),
    properties: Object.fromEntries(entries.map(([name, f]) => [name, f.schema])) as FieldSchemas<F>,
    empty: () => Object.fromEntries(entries.map(([name, f]) => [name, f.empty()])) as FieldValues<F>,
    pick: (values) => Object.fromEntries(entries.map(([name]) => [name, values[name]])) as FieldValues<F>,
    toColumns(values, { jsonb = 'text' } = {}) {
      const out: Partial<Record<FieldColumnName<F>, unknown>> = {};
      for (const [name, f] of entries) {
        const value = values[name];
        if (value === undefined) continue;
        out[f.column as FieldColumnName<F>] = f.storage === 'jsonb' && jsonb === 'text' ? JSON.stringify(value) : value;
      }
      return out;
    },
    fromColumns: (row) =>
      Object.fromEntries(entries.map(([name, f]) => [name, row[f.column as keyof FieldColumns<F>]])) as FieldValues<F>,
    only: <K extends Name>(names: readonly K[]) =>
      declareFields(
        Object.fromEntries(entries.filter(([name]) => (names as readonly string[]).includes(name))) as Pick<F, K>,
      ),
  };
}
