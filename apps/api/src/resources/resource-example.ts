import type { TSchema } from 'typebox';
import type { ResourceDeclaration } from './resource-declaration.ts';

const EXAMPLE_ID = '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b';
const EXAMPLE_TIME = '2026-11-02T09:30:00.000Z';

/** Example values for the string patterns resources use, so generated examples match their schema. */
const PATTERN_EXAMPLES: Record<string, string> = {
  '^[a-z]{2}(-[A-Z]{2})?$': 'en',
  '^#[0-9a-fA-F]{6}$': '#1F3A5F',
  '^(https?|mailto):': 'https://tickets.example/SCOPE-12',
  '^CVE-\\d{4}-\\d{4,}$': 'CVE-2021-44228',
  '^[0-9a-f]{64}$': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '^[a-z0-9]+(-[a-z0-9]+)*$': 'in-scope-urls',
};

/** A value valid against `schema` for a field the create example does not set (ids, timestamps, defaults). */
function exampleValue(schema: TSchema): unknown {
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (s.format === 'uuid') return EXAMPLE_ID;
  if (s.format === 'date-time') return EXAMPLE_TIME;
  if (s.format === 'date') return '2026-11-02';
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.anyOf)) {
    const nullable = (s.anyOf as Array<Record<string, unknown>>).some((b) => b.type === 'null');
    return nullable ? null : exampleValue((s.anyOf as TSchema[])[0]!);
  }
  switch (s.type) {
    case 'string':
      if (typeof s.pattern === 'string') {
        const value = PATTERN_EXAMPLES[s.pattern];
        if (value === undefined)
          throw new Error(`define-resource: no example for the pattern ${s.pattern}; add one to PATTERN_EXAMPLES`);
        return value;
      }
      return typeof s.minLength === 'number' && s.minLength > 0 ? 'Example' : '';
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, TSchema>;
      return Object.fromEntries(((s.required ?? []) as string[]).map((k) => [k, exampleValue(properties[k]!)]));
    }
    default:
      return null;
  }
}

/** The values of `given` that are fields of the resource (a create body also holds other things). */
export function pickFields(decl: ResourceDeclaration, given: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(given).filter(([k]) => k in decl.fields));
}

/**
 * A whole row of a resource as the API returns it, for the OpenAPI document: the values given,
 * and for every other field (and extra response field) a value generated from its schema. Why
 * never written by hand: a hand-written row misses the next field, and the document then answers
 * 500 (its examples are checked against the schemas).
 */
export function exampleRow(decl: ResourceDeclaration, given: Record<string, unknown>): Record<string, unknown> {
  const schemas: Record<string, TSchema> = {
    ...Object.fromEntries(Object.entries(decl.fields).map(([k, f]) => [k, f.schema as TSchema])),
    ...decl.extraResponse,
  };
  return Object.fromEntries(
    Object.entries(schemas).map(([k, schema]) => [
      k,
      k in given ? given[k] : k === 'id' ? EXAMPLE_ID : exampleValue(schema),
    ]),
  );
}
