import { FINDING_FIELDS, type FindingFieldDeclaration, type FindingFieldName } from '@service/report-model';
import type { Field, Fields } from '../field.ts';

/** The API field of a finding field: its column and schema, and whether it can be set on create and changed. */
function apiField(f: FindingFieldDeclaration): Field {
  return {
    column: f.column,
    schema: f.schema,
    create: f.required ? 'required' : 'optional',
    update: !f.immutable,
    json: f.storage === 'jsonb',
  };
}

function apiFields(parts: ReadonlyArray<FindingFieldDeclaration['part']>): Fields {
  const entries = Object.entries(FINDING_FIELDS) as Array<[FindingFieldName, FindingFieldDeclaration]>;
  return Object.fromEntries(entries.filter(([, f]) => parts.includes(f.part)).map(([name, f]) => [name, apiField(f)]));
}

/** The content columns findings and finding templates share, from the report model's declaration. */
export const findingContentFields: Fields = apiFields(['content']);

/** Every field of a finding, in the declaration's order. */
export const findingFields: Fields = apiFields(['content', 'state']);
