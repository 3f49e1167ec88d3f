import fc from 'fast-check';
import { NUL_FREE_PATTERN } from '@service/http';
import { SCAN_FORMATS, SCANNER_RULE_PATTERN, SCANNERS } from '@service/scanners';

type Schema = Record<string, unknown>;

/** How the document states the NUL rule (see NUL_FREE_PATTERN in @service/http). */
const NUL_FREE_LOOKAHEAD = `^(?=${NUL_FREE_PATTERN.slice(1)})`;

/** Generators for the string patterns the API uses; a new pattern must be added here on purpose. */
const PATTERNS: Record<string, fc.Arbitrary<string>> = {
  '^(https?|mailto):': fc.oneof(
    fc.webUrl(),
    fc.emailAddress().map((e) => `mailto:${e}`),
  ),
  '^#[0-9a-fA-F]{6}$': fc
    .integer({ min: 0, max: 0xffffff })
    .map((n) => `#${n.toString(16).padStart(6, '0').toUpperCase()}`),
  '^[a-z]{2}(-[A-Z]{2})?$': fc.constantFrom('en', 'de', 'fr', 'en-GB', 'de-AT', 'ar', 'he'),
  '^CVE-\\d{4}-\\d{4,}$': fc
    .tuple(fc.integer({ min: 1999, max: 2030 }), fc.integer({ min: 1000, max: 99_999_999 }))
    .map(([y, n]) => `CVE-${y}-${n}`),
  [SCANNER_RULE_PATTERN]: fc.oneof(
    ...SCAN_FORMATS.map((s) => fc.stringMatching(SCANNERS[s].ruleId.pattern).map((id) => `${s}:${id}`)),
  ),
  '^[0-9a-f]{64}$': fc.stringMatching(/^[0-9a-f]{64}$/),
  '^[a-z0-9]+(-[a-z0-9]+)*$': fc.stringMatching(/^[a-z0-9]{1,10}(-[a-z0-9]{1,10}){0,3}$/),
};

/**
 * Text as people and scanners write it: any Unicode (RTL, emoji, combining marks), Markdown
 * and markup-looking text, but never U+0000, which the API refuses.
 */
function text(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const max = Math.min(maxLength, 40);
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: max }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'مرحبا بالعالم',
          'שלום',
          'e\u0301\u0302',
          '👩‍💻🔥',
          '</w:t><w:p>',
          '---\n# H\n```x```',
          "'; drop table x; --",
        ),
      },
    )
    .map((s) => s.replaceAll('\u0000', ''))
    .filter((s) => [...s].length >= minLength && [...s].length <= maxLength);
}

/**
 * A fast-check arbitrary of values valid against a JSON Schema (the OpenAPI document's dialect),
 * with `$ref` resolved from the document's components. Arrays are kept short.
 */
export function schemaArbitrary(
  schema: Schema,
  components: Record<string, Schema>,
  overrides: Record<string, fc.Arbitrary<unknown>> = {},
  path = '',
): fc.Arbitrary<unknown> {
  if (overrides[path]) return overrides[path];
  if (typeof schema.$ref === 'string')
    return schemaArbitrary(components[schema.$ref.split('/').pop()!]!, components, overrides, path);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const branches = (schema.anyOf ?? schema.oneOf) as Schema[];
    return fc.oneof(...branches.map((b) => schemaArbitrary(b, components, overrides, path)));
  }
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({
        min: (schema.minimum as number | undefined) ?? -1000,
        max: Math.min((schema.maximum as number | undefined) ?? 100_000, 100_000),
      });
    case 'number': {
      const min = (schema.minimum as number | undefined) ?? -1000;
      const max = (schema.maximum as number | undefined) ?? 1000;
      return fc.integer({ min: min * 10, max: max * 10 }).map((n) => n / 10);
    }
    case 'string': {
      if (schema.format === 'uuid') return fc.uuid({ version: 4 });
      if (schema.format === 'date')
        return fc
          .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10));
      if (schema.format === 'date-time')
        return fc
          .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
          .map((d) => d.toISOString());
      // The NUL rule the document states on text (alone, or as a lookahead before a pattern of its
      // own): text() never makes U+0000, nor do the pattern generators.
      if (typeof schema.pattern === 'string' && schema.pattern !== NUL_FREE_PATTERN) {
        const pattern = schema.pattern.replace(NUL_FREE_LOOKAHEAD, '^');
        const arb = PATTERNS[pattern];
        if (!arb) throw new Error(`schemaArbitrary: no generator for the pattern ${pattern} at ${path || '/'}`);
        return arb;
      }
      return text((schema.minLength as number | undefined) ?? 0, (schema.maxLength as number | undefined) ?? 200);
    }
    case 'array': {
      const item = schemaArbitrary(schema.items as Schema, components, overrides, `${path}/*`);
      const minLength = (schema.minItems as number | undefined) ?? 0;
      const maxLength = Math.max(minLength, Math.min((schema.maxItems as number | undefined) ?? 3, 3));
      return schema.uniqueItems
        ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(item, { minLength, maxLength });
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, prop] of Object.entries(properties))
        record[name] = schemaArbitrary(prop, components, overrides, `${path}/${name}`);
      const optional = Object.keys(properties).filter((k) => !required.has(k));
      const minProperties = (schema.minProperties as number | undefined) ?? 0;
      return fc
        .record(record, { requiredKeys: [...required].filter((k) => k in record) })
        .filter(
          (v) =>
            Object.values(v as object).filter((x) => x !== undefined).length >= minProperties || optional.length === 0,
        );
    }
    default:
      throw new Error(`schemaArbitrary: unsupported schema at ${path || '/'}: ${JSON.stringify(schema).slice(0, 200)}`);
  }
}
