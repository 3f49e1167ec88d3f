import type { DeclaredFields, FieldDeclaration, FieldDeclarations } from '@service/report-model';

/**
 * The API field (a `Field` of `field.ts`) of a declared field: its column and schema, and whether
 * it can be set on create and changed. Its row value is its schema's type.
 */
export interface ApiFieldOf<D extends FieldDeclaration> {
  column: D['column'];
  schema: D['schema'];
  create: 'required' | 'optional';
  update: boolean;
  json: boolean;
}
export type ApiFieldsOf<F extends FieldDeclarations> = { [K in keyof F]: ApiFieldOf<F[K]> };

/**
 * The API fields of a report-model declaration (findings, reports, tabs, links, projects), in its
 * order: responses, create and PATCH schemas, the row type and the OpenAPI document follow it.
 */
export function apiFieldsOf<F extends FieldDeclarations>(declared: DeclaredFields<F>): ApiFieldsOf<F> {
  return Object.fromEntries(
    declared.entries.map(([name, f]) => [
      name,
      {
        column: f.column,
        schema: f.schema,
        create: f.required ? 'required' : 'optional',
        update: !f.immutable,
        json: f.storage === 'jsonb',
      },
    ]),
  ) as ApiFieldsOf<F>;
}
