import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { ValidationError, type ErrorDetail } from './http-error.ts';

type Compiled = ReturnType<typeof Compile>;

interface RawIssue {
  keyword: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

function toIssues(errors: Iterable<RawIssue>): ErrorDetail[] {
  const issues: ErrorDetail[] = [];
  const seen = new Set<string>();
  const push = (path: string, message: string) => {
    const key = `${path}\u0000${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push({ path: path || '/', message });
    }
  };
  const all = [...errors];
  // Why: a failed enum/union reports one line per branch; the anyOf summary alone says it best.
  const unionPaths = new Set(all.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const e of all) {
    if (e.keyword === 'boolean') continue;
    if (e.keyword === 'const' && unionPaths.has(e.instancePath)) continue;
    if (e.keyword === 'required') {
      for (const name of (e.params.requiredProperties as string[]) ?? [])
        push(`${e.instancePath}/${name}`, 'is required');
    } else if (e.keyword === 'additionalProperties') {
      for (const name of (e.params.additionalProperties as string[]) ?? [])
        push(`${e.instancePath}/${name}`, 'is not a known field');
    } else if (e.keyword === 'enum') {
      push(e.instancePath, `must be one of: ${((e.params.allowedValues as unknown[]) ?? []).join(', ')}`);
    } else if (e.keyword === 'anyOf') {
      push(e.instancePath, 'does not match any allowed value or shape');
    } else {
      push(e.instancePath, e.message);
    }
    if (issues.length >= 50) break;
  }
  return issues;
}

const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Every place in a value where U+0000 occurs (in a string or an object key), as JSON Pointers.
 * Why: PostgreSQL text and jsonb cannot hold U+0000; refusing it here, for every input that passes a
 * Validator (bodies at any depth, multipart fields, query strings, path parameters), gives a 400
 * naming the field instead of a 500 from the database.
 */
export function findNulCharacters(value: unknown): string[] {
  const found: string[] = [];
  // Why a stack of its own: a value may nest deeply (JSON bodies are limited to MAX_JSON_DEPTH
  // before this runs, but a caller may pass anything); recursion would overflow the call stack.
  // Entries are visited in document order: a key holding U+0000 is reported before its value.
  const stack: Array<{ item: unknown; path: string; key?: true }> = [{ item: value, path: '' }];
  while (stack.length > 0 && found.length < 50) {
    const { item, path, key } = stack.pop()!;
    if (key) found.push(path.replaceAll('\u0000', '\\u0000'));
    else if (typeof item === 'string') {
      if (item.includes('\u0000')) found.push(path || '/');
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push({ item: item[i], path: `${path}/${i}` });
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [name, child] = entries[i]!;
        const at = `${path}/${escapePointer(name)}`;
        stack.push({ item: child, path: at });
        if (name.includes('\u0000')) stack.push({ item: name, path: at, key: true });
      }
    }
  }
  return found;
}

type JsonSchemaNode = { type?: unknown; anyOf?: unknown; properties?: Record<string, JsonSchemaNode> };

/** The scalar type a query parameter's schema asks for, read from its JSON Schema (`type`, or the branches of `anyOf`). */
function scalarTypeOf(schema: JsonSchemaNode | undefined): 'boolean' | 'integer' | 'number' | null {
  if (!schema) return null;
  if (schema.type === 'boolean' || schema.type === 'integer' || schema.type === 'number') return schema.type;
  if (Array.isArray(schema.anyOf))
    for (const branch of schema.anyOf as JsonSchemaNode[]) {
      const type = scalarTypeOf(branch);
      if (type) return type;
    }
  return null;
}

/**
 * Query strings are text: `edited=true`, `page=2`. TypeBox's `Value.Convert` converts by the
 * schema's TypeBox kind, which a schema copied with object spread (`{ ...Type.Boolean(), description }`)
 * no longer carries; this converts the top-level properties by their JSON Schema `type`, which every
 * copy keeps. Values that do not convert stay text, so validation names them.
 */
function convertQueryText(schema: JsonSchemaNode, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !schema.properties) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [name, text] of Object.entries(out)) {
    if (typeof text !== 'string') continue;
    const type = scalarTypeOf(schema.properties[name]);
    if (type === 'boolean') {
      if (text === 'true' || text === '1') out[name] = true;
      else if (text === 'false' || text === '0') out[name] = false;
    } else if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(text)) {
      out[name] = Number(text);
    }
  }
  return out;
}

/** A compiled TypeBox schema that either returns the value or throws a 400 naming every bad path. */
export class Validator<T = unknown> {
  private readonly compiled: Compiled;

  constructor(
    readonly schema: TSchema,
    private readonly where: 'body' | 'query' | 'path parameters' | 'form field',
  ) {
    this.compiled = Compile(schema);
  }

  /** How a message names one input: "body field /title", "form field /caption". */
  private get subject(): string {
    return this.where === 'form field' ? 'form field' : `${this.where} field`;
  }

  /** Query strings arrive as text: convert to the schema's numbers and booleans first. */
  parse(value: unknown, options: { convert?: boolean } = {}): T {
    const nul = findNulCharacters(value);
    if (nul.length > 0) {
      throw new ValidationError(
        `The ${this.subject} ${nul[0]} contains the character U+0000 (NUL), which is ` +
          `not accepted${nul.length > 1 ? ` (and ${nul.length - 1} more)` : ''}.`,
        nul.map((path) => ({ path, message: 'must not contain the character U+0000 (NUL)' })),
      );
    }
    const input = options.convert
      ? convertQueryText(this.schema as JsonSchemaNode, Value.Convert(this.schema, value))
      : value;
    if (this.compiled.Check(input)) return input as T;
    const issues = toIssues(this.compiled.Errors(input) as Iterable<RawIssue>);
    const first = issues[0];
    throw new ValidationError(
      `The ${first ? `${this.subject} ${first.path} ${first.message}` : `${this.where} is invalid`}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}.`,
      issues,
    );
  }
}
