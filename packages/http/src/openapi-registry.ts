import { MAX_JSON_DEPTH } from './json-depth.ts';
import { Type, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { MERGE_PATCH_JSON_TYPE } from './media-types.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface HeaderDoc {
  description: string;
  schema?: Record<string, unknown>;
  required?: boolean;
}

export interface ResponseDoc {
  description: string;
  /** A schema, or the name of a registered component schema. */
  schema?: TSchema | string | { arrayOf: string };
  contentType?: string;
  headers?: Record<string, HeaderDoc>;
  example?: unknown;
}

export interface HeaderParameterDoc {
  name: string;
  description: string;
  required?: boolean;
  schema?: Record<string, unknown>;
}

export interface OperationDoc {
  method: HttpMethod;
  /** OpenAPI style: `/rest/v1/clients/{id}`. */
  path: string;
  /** camelCase, unique: generated clients name their methods after it. */
  operationId: string;
  summary: string;
  /** Required: what the operation does and what it answers. */
  description?: string;
  tags: string[];
  security?: 'apiKey' | 'session' | 'none';
  params?: TSchema;
  query?: TSchema;
  headers?: HeaderParameterDoc[];
  body?: {
    schema: TSchema;
    contentType?: string;
    required?: boolean;
    example?: unknown;
    /**
     * The operation that documents the multipart upload this JSON operation still accepts from
     * older clients (see `legacyUpload` of defineRoute).
     */
    legacyUploadOf?: string;
  };
  responses: Record<number, ResponseDoc>;
  /**
   * Answers 429 `rate_limited` with `Retry-After` and carries the `X-RateLimit-*` headers.
   * Default: true for API-key operations (the REST pipeline limits every one), false otherwise.
   */
  rateLimited?: boolean;
  /**
   * Refuses state-changing cookie-session requests without `X-Requested-With` or from another
   * origin (403 `cross_site_request`). Default: true for session operations other than GET.
   */
  crossSiteCheck?: boolean;
  /** Only administrators may call it (403 `forbidden` for others). */
  adminOnly?: boolean;
  /** Needs a database, so it can answer 503 `unavailable`. Default true. */
  usesDatabase?: boolean;
  /**
   * Work one call can make expensive (a search, an import, an export), and when it is (`with \`q\``):
   * its statements have a time limit of their own (503 `statement_timeout`), and one user's such
   * calls run a few at a time, the others waiting their turn (429 `too_many_concurrent_requests`
   * when too many wait).
   */
  heavy?: string;
  /**
   * Reads (`read`) or also writes (`write`) stored files, so it can answer 503 `storage_unavailable`
   * when the file store cannot be reached, and (`write`) 507 `storage_full` when it has no room.
   */
  usesFileStore?: 'read' | 'write';
  /** Requests one call counts as against the rate limits, when more than one (stated in the description). */
  cost?: number;
  /**
   * What a call answered 304 counts as instead (a conditional request answered from the validator,
   * before the work); stated in the description. The route charges the rest when it does the work.
   */
  notModifiedCost?: number;
  /**
   * Sending the same request again after its answer was lost is answered as the first was (and
   * changes nothing more): published as `x-retry-safe`, which clients follow to decide what they
   * resend after a network failure. Default: true for GET (and so HEAD), and for operations that take
   * `Idempotency-Key` (sent with the key); false otherwise.
   */
  retrySafe?: boolean;
}

/** The header that makes a creating POST safe to retry; every operation that takes it gets this exact definition. */
export const IDEMPOTENCY_KEY_HEADER: HeaderParameterDoc = {
  name: 'Idempotency-Key',
  description:
    'Makes a retry safe: the same key and request within 24 hours returns the ' +
    'original response with `Idempotent-Replayed: true` and creates nothing; the same ' +
    'key with a different request answers 422 `idempotency_key_reused`; while the ' +
    'first request runs, 409 `idempotency_in_progress`. 1 to 255 printable ASCII ' +
    'characters (no spaces), per API key; anything else answers 400 ' +
    '`invalid_idempotency_key`.',
  required: false,
  schema: {
    type: 'string',
    minLength: 1,
    maxLength: 255,
    pattern: '^[\\x21-\\x7e]+$',
    examples: ['3f2b8c1e-import-2026-11-02'],
  },
};

const X_REQUESTED_WITH: HeaderParameterDoc = {
  name: 'X-Requested-With',
  description:
    'Required on state-changing requests of a signed-in session (any non-empty value, ' +
    'e.g. `XMLHttpRequest`). A browser cannot add it to a cross-site request without ' +
    'a CORS preflight this service never grants; when the browser sends `Origin`, it ' +
    "must also be this service's own origin (as the client sees it, also behind a " +
    'reverse proxy listed in `TRUST_PROXY`). Otherwise 403 `cross_site_request`.',
  required: true,
  schema: { type: 'string', minLength: 1, examples: ['XMLHttpRequest'] },
};

const IF_NONE_MATCH: HeaderParameterDoc = {
  name: 'If-None-Match',
  description: 'The `ETag` of a representation you hold; when it is still current the answer is 304 with no body.',
  required: false,
  schema: { type: 'string', examples: ['W/"k3l1QmZs5aH3uQvZ9bq7Ow"'] },
};

/** Response headers that recur; the document holds each once, under `components.headers`. */
const RESPONSE_HEADERS = {
  requestId: {
    description:
      "The id of this request in the service log: the client's own `X-Request-Id` when " +
      'it is 1 to 128 of `A-Za-z0-9._:-`, otherwise a new UUID.',
    schema: { type: 'string' },
  },
  rateLimitLimit: {
    description:
      'Requests of cost 1 allowed per minute by the budget that binds first (per client IP, or per API key).',
    schema: { type: 'integer' },
  },
  rateLimitRemaining: {
    description: 'Requests of cost 1 still allowed now, after this one.',
    schema: { type: 'integer' },
  },
  rateLimitReset: {
    description:
      'Whole seconds until every request counted now is older than the one-minute window, so at most ' +
      '60. On a 429, `Retry-After` says when this request fits.',
    schema: { type: 'integer', minimum: 0, maximum: 60 },
  },
  retryAfter: { description: 'Whole seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  replayed: {
    description:
      '`true` when this is the stored response of an earlier request with the same ' +
      '`Idempotency-Key`; absent otherwise.',
    schema: { type: 'string', enum: ['true'] },
  },
  location: {
    description:
      'The absolute URL of what was created, e.g. `https://reports.example.com/rest/v1/clients/{id}`; ' +
      'behind a reverse proxy listed in `TRUST_PROXY`, with the scheme and host the client used.',
    schema: { type: 'string', format: 'uri' },
  },
  etag: {
    description:
      'A validator of this representation; send it back in `If-None-Match` to get 304 while it is ' +
      'unchanged, whatever `Cache-Control` the request carries. Weak (`W/"..."`) for JSON and text, ' +
      'which may be sent compressed, and for rendered documents (the same report gives the same tag, ' +
      'though each render differs byte for byte); strong for stored files (images, Word templates).',
    schema: { type: 'string' },
  },
  wwwAuthenticate: {
    description: 'The authentication scheme to use: `Bearer` (an API key).',
    schema: { type: 'string', examples: ['Bearer realm="service"'] },
  },
} satisfies Record<string, HeaderDoc>;

/** Each shared header object, by its component name. */
const SHARED_HEADER_NAMES = new Map<HeaderDoc, string>([
  [RESPONSE_HEADERS.requestId, 'X-Request-Id'],
  [RESPONSE_HEADERS.rateLimitLimit, 'X-RateLimit-Limit'],
  [RESPONSE_HEADERS.rateLimitRemaining, 'X-RateLimit-Remaining'],
  [RESPONSE_HEADERS.rateLimitReset, 'X-RateLimit-Reset'],
  [RESPONSE_HEADERS.retryAfter, 'Retry-After'],
  [RESPONSE_HEADERS.replayed, 'Idempotent-Replayed'],
  [RESPONSE_HEADERS.location, 'Location'],
  [RESPONSE_HEADERS.etag, 'ETag'],
  [RESPONSE_HEADERS.wwwAuthenticate, 'WWW-Authenticate'],
]);

/** Header parameters that recur; the document holds each once, under `components.parameters`. */
const SHARED_PARAMETERS = new Map<string, HeaderParameterDoc>([
  ['IdempotencyKey', IDEMPOTENCY_KEY_HEADER],
  ['XRequestedWith', X_REQUESTED_WITH],
  ['IfNoneMatch', IF_NONE_MATCH],
]);

function headerComponent(h: HeaderDoc): Record<string, unknown> {
  return {
    description: h.description,
    ...(h.required ? { required: true } : {}),
    schema: h.schema ?? { type: 'string' },
  };
}

function parameterComponent(h: HeaderParameterDoc): Record<string, unknown> {
  return {
    name: h.name,
    in: 'header',
    required: h.required ?? false,
    description: h.description,
    schema: h.schema ?? { type: 'string' },
  };
}

const ERROR_DETAIL_SCHEMA = {
  type: 'object',
  description: 'One problem: where it is and what is wrong there.',
  required: ['path', 'message'],
  additionalProperties: false,
  properties: {
    path: {
      type: 'string',
      description:
        'JSON Pointer to the input concerned: `/title`, `/findings/3/severity` in a body; ' +
        '`/q` for a query or path parameter; `/file` for an upload; `/` for the request ' +
        'as a whole.',
      examples: ['/title'],
    },
    message: {
      type: 'string',
      description: 'What is wrong there, for a person.',
      examples: ['must NOT have fewer than 1 characters'],
    },
    value: {
      type: 'string',
      description: "A value needed to recover, e.g. the row's current `updatedAt` on a `conflict`.",
      examples: ['2026-11-02T09:30:00.000Z'],
    },
  },
};

const ERROR_SCHEMA = {
  type: 'object',
  description: 'Every error answer has this shape. `details` has the same shape for every code.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          description: 'Stable machine-readable code, e.g. `validation_failed`, `not_found`, `conflict`.',
        },
        message: { type: 'string', description: 'What went wrong, for a person.' },
        details: {
          type: 'array',
          description: 'Per-input problems, when the error is about particular inputs.',
          items: { $ref: '#/components/schemas/ErrorDetail' },
          maxItems: 50,
        },
      },
    },
  },
  examples: [
    {
      error: {
        code: 'validation_failed',
        message: 'The body field /name must NOT have fewer than 1 characters.',
        details: [{ path: '/name', message: 'must NOT have fewer than 1 characters' }],
      },
    },
  ],
};

/** The automatic answers, by status: the codes the machinery knows an operation can answer. */
interface AutoError {
  codes: Array<[code: string, when: string]>;
  headers?: Record<string, HeaderDoc>;
}

const CAMEL_CASE = /^[a-z][a-zA-Z0-9]*$/;

function camelCased(id: string): string {
  const words = id
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  return words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('') || 'operation';
}

function stripTypeBox(schema: unknown): unknown {
  // TypeBox schemas are plain JSON Schema objects; JSON round-trip drops its symbol-keyed metadata.
  return statesTypesAndNulRule(JSON.parse(JSON.stringify(schema)));
}

/**
 * The JSON type of an enumeration whose values all have one (`Type.Enum` writes a bare `enum`).
 * Why: a form built from the document (Swagger UI's multipart fields) treats a bare enum as a
 * required choice and preselects its first value, so an optional field is sent without being chosen.
 */
function enumType(values: unknown[]): string | null {
  if (values.length === 0) return null;
  if (values.every((v) => typeof v === 'string')) return 'string';
  if (values.every((v) => Number.isInteger(v))) return 'integer';
  if (values.every((v) => typeof v === 'number')) return 'number';
  if (values.every((v) => typeof v === 'boolean')) return 'boolean';
  return null;
}

/**
 * The rule every text input follows (the Validator refuses U+0000 anywhere: PostgreSQL text cannot
 * hold it), as a JSON Schema pattern that validators check and client generators accept.
 */
export const NUL_FREE_PATTERN = '^[^\\u0000]*$';
const NUL_FREE_LOOKAHEAD = '^(?=[^\\u0000]*$)';

/**
 * True when a pattern is anchored at both ends and can only match characters other than U+0000:
 * no `.`, no negated class, no `\S`, `\W`, `\D`, `\p`, `\c`, no `\0`, `\x00` or `\u0000`. Conservative:
 * false means "may admit U+0000".
 */
function excludesNul(pattern: string): boolean {
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$')) return false;
  if (/\\(?:0|x00|u0000|u\{0+\}|[SWDcpP])/.test(pattern.replace(/\\\\/g, ''))) return false;
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i]!;
    if (c === '\\') i += 1;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') {
      if (pattern[i + 1] === '^') return false;
      inClass = true;
    } else if (c === '.') return false;
  }
  return true;
}

/** Keys whose values are data (examples, enumerations), not schemas. */
const VALUE_KEYS = new Set(['example', 'examples', 'enum', 'const', 'default']);
/** Keys whose values map names to schemas. */
const SCHEMA_MAP_KEYS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * Every enumeration typed (see enumType), and every text schema with the NUL rule stated: free
 * text gets NUL_FREE_PATTERN; a pattern that may admit U+0000 is prefixed with a lookahead saying
 * the same. Binary parts, formats, enumerations and constants are left alone (none of them admits
 * U+0000).
 */
function statesTypesAndNulRule(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(statesTypesAndNulRule);
  if (node === null || typeof node !== 'object') return node;
  const type = 'enum' in node && Array.isArray(node.enum) && !('type' in node) ? enumType(node.enum) : null;
  const out: Record<string, unknown> = type ? { type } : {};
  for (const [key, value] of Object.entries(node)) {
    if (VALUE_KEYS.has(key)) out[key] = value;
    else if (SCHEMA_MAP_KEYS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value))
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, schema]) => [name, statesTypesAndNulRule(schema)]),
      );
    else out[key] = statesTypesAndNulRule(value);
  }
  const isText = out.type === 'string' && out.format === undefined && !('enum' in out) && !('const' in out);
  if (isText) {
    const pattern = out.pattern;
    if (pattern === undefined) out.pattern = NUL_FREE_PATTERN;
    else if (typeof pattern === 'string' && pattern.startsWith('^') && !excludesNul(pattern))
      out.pattern = `${NUL_FREE_LOOKAHEAD}${pattern.slice(1)}`;
  }
  return out;
}

function isJsonType(contentType: string): boolean {
  return contentType === 'application/json' || contentType.endsWith('+json');
}

function describeCodes(codes: AutoError['codes']): string {
  return codes.map(([code, when]) => `\`${code}\` (${when})`).join('; ');
}

/** Routes add themselves here as they are defined; the OpenAPI document is generated from it. */
export class OpenApiRegistry {
  private readonly operations: OperationDoc[] = [];
  private readonly schemas = new Map<string, TSchema>();
  private readonly tags = new Map<string, string>();
  private readonly undocumented: Array<{ method: string; path: string; reason: string }> = [];

  /**
   * Adds an operation. Throws, naming the operation, when the declaration breaks a rule of the
   * published document: a non-camelCase or duplicate operationId, no description, or the same
   * method and path twice.
   */
  addOperation(op: OperationDoc): void {
    const where = `${op.method.toUpperCase()} ${op.path}`;
    if (this.operations.some((o) => o.method === op.method && o.path === op.path)) {
      throw new Error(`OpenAPI: ${where} is registered twice`);
    }
    if (!CAMEL_CASE.test(op.operationId)) {
      throw new Error(
        `OpenAPI: the operationId "${op.operationId}" of ${where} is not camelCase ` +
          `(generated clients name methods after it); rename it to ` +
          `"${camelCased(op.operationId)}".`,
      );
    }
    const clash = this.operations.find((o) => o.operationId === op.operationId);
    if (clash)
      throw new Error(
        `OpenAPI: the operationId "${op.operationId}" of ${where} is already used by ` +
          `${clash.method.toUpperCase()} ${clash.path}; operationIds must be unique.`,
      );
    if (!op.description?.trim()) {
      throw new Error(
        `OpenAPI: ${where} (${op.operationId}) has no description; say what it does and what it answers.`,
      );
    }
    this.operations.push(op);
  }

  addSchema(name: string, schema: TSchema): void {
    this.schemas.set(name, schema);
  }

  addTag(name: string, description: string): void {
    this.tags.set(name, description);
  }

  /**
   * Records a route that is deliberately not in the API reference (an HTML page, a static asset),
   * so the test comparing the router with the document knows it is not a forgotten operation.
   */
  addUndocumentedRoute(method: string, path: string, reason: string): void {
    this.undocumented.push({ method: method.toUpperCase(), path, reason });
  }

  listOperations(): readonly OperationDoc[] {
    return this.operations;
  }

  listUndocumentedRoutes(): ReadonlyArray<{ method: string; path: string; reason: string }> {
    return this.undocumented;
  }

  private responseSchema(schema: ResponseDoc['schema']): unknown {
    if (schema === undefined) return undefined;
    if (typeof schema === 'string') return { $ref: `#/components/schemas/${schema}` };
    if ('arrayOf' in schema && typeof schema.arrayOf === 'string')
      return { type: 'array', items: { $ref: `#/components/schemas/${schema.arrayOf}` } };
    return stripTypeBox(schema);
  }

  /** The TypeBox schema a response is validated against (for its example). */
  private typeBoxSchema(schema: ResponseDoc['schema'], where: string): TSchema | null {
    if (schema === undefined) return null;
    const component = (name: string) => {
      const found = this.schemas.get(name);
      if (!found)
        throw new Error(
          `OpenAPI: ${where} refers to the schema "${name}", which is not registered (registry.addSchema).`,
        );
      return found;
    };
    if (typeof schema === 'string') return component(schema);
    if ('arrayOf' in schema && typeof schema.arrayOf === 'string') return Type.Array(component(schema.arrayOf));
    return schema as TSchema;
  }

  /** Examples that do not match their schemas, found while the document is built (reported all at once). */
  private badExamples: string[] = [];

  private checkExample(schema: TSchema | null, example: unknown, where: string): void {
    if (schema === null || example === undefined) return;
    if (Value.Check(schema, example)) return;
    const problems = [...Value.Errors(schema, example)]
      .slice(0, 5)
      .map((e) => `${(e as { instancePath?: string }).instancePath || '/'} ${(e as { message?: string }).message}`);
    this.badExamples.push(`the example of ${where} does not match its schema (${problems.join('; ')})`);
  }

  /** The errors and headers the machinery knows an operation can answer, from its declaration. */
  private automaticErrors(op: OperationDoc): Record<number, AutoError> {
    const security = op.security ?? 'none';
    const jsonBody = op.body !== undefined && (op.body.contentType ?? 'application/json') === 'application/json';
    const uploads =
      op.body !== undefined && (op.body.contentType === 'multipart/form-data' || op.body.legacyUploadOf !== undefined);
    const idempotent = (op.headers ?? []).some((h) => h.name.toLowerCase() === 'idempotency-key');
    const rateLimited = op.rateLimited ?? security === 'apiKey';
    const crossSite = op.crossSiteCheck ?? (security === 'session' && op.method !== 'get');
    const errors: Record<number, AutoError> = {};
    const add = (status: number, code: string, when: string, headers?: Record<string, HeaderDoc>) => {
      errors[status] ??= { codes: [] };
      errors[status].codes.push([code, when]);
      if (headers) errors[status].headers = { ...errors[status].headers, ...headers };
    };
    if (op.params || op.query || op.body || (op.headers ?? []).length > 0) {
      add(
        400,
        'validation_failed',
        'a parameter or the body does not match its schema, or text contains U+0000; `details` names each field',
      );
    }
    if (jsonBody) {
      add(400, 'malformed_json', 'the body is not JSON');
      add(
        400,
        'json_too_deep',
        `objects and arrays in the body nest more than ${MAX_JSON_DEPTH} levels deep; checked before anything else reads the body`,
      );
    }
    if (uploads) add(400, 'bad_request', 'the multipart body cannot be read');
    if (idempotent)
      add(400, 'invalid_idempotency_key', '`Idempotency-Key` is empty or not 1 to 255 printable ASCII characters');
    if (security === 'apiKey') {
      add(401, 'unauthenticated', 'no API key, or a malformed, unknown, expired or revoked one; one message for all', {
        'WWW-Authenticate': RESPONSE_HEADERS.wwwAuthenticate,
      });
      add(403, 'api_not_licensed', 'the licence or plan does not include the REST API');
      add(403, 'forbidden', "the key owner's role does not allow this");
      if (op.method !== 'get') {
        add(403, 'read_only_key', 'a read-only key cannot change anything');
        add(403, 'client_not_allowed', "the affected client is not on the key's allow-list");
      }
      if (op.params || op.method !== 'get')
        add(404, 'not_found', 'it does not exist or you may not see it; the same answer for both');
      add(
        403,
        'cross_site_request',
        op.method === 'get'
          ? 'with a session: `Origin` is not this service'
          : 'with a session: `X-Requested-With` is missing, or `Origin` is not this service',
      );
    }
    if (security === 'session') {
      add(401, 'unauthenticated', 'not signed in, or the session has ended');
      if (op.params) add(404, 'not_found', 'it does not exist in your organization');
    }
    if (op.adminOnly) add(403, 'forbidden', 'only administrators may do this');
    if (crossSite) add(403, 'cross_site_request', '`X-Requested-With` is missing, or `Origin` is not this service');
    if (op.body) {
      add(413, 'payload_too_large', 'the body or an uploaded file is larger than this operation accepts');
      add(
        415,
        'unsupported_media_type',
        `the body is not ` +
          `${[op.body.contentType ?? 'application/json', ...(op.method === 'patch' && jsonBody ? [MERGE_PATCH_JSON_TYPE] : [])].join(' or ')}` +
          (op.body.legacyUploadOf ? ` (or the multipart upload of \`${op.body.legacyUploadOf}\`)` : ''),
      );
    }
    if (rateLimited)
      add(429, 'rate_limited', 'too many requests; wait `Retry-After` seconds', {
        'Retry-After': RESPONSE_HEADERS.retryAfter,
      });
    if (op.usesFileStore === 'write')
      add(507, 'storage_full', 'the file store has no room for the file; nothing was stored');
    if (op.usesFileStore)
      add(503, 'storage_unavailable', 'the file store cannot be reached; retry after `Retry-After` seconds', {
        'Retry-After': RESPONSE_HEADERS.retryAfter,
      });
    if (op.heavy) {
      add(
        429,
        'too_many_concurrent_requests',
        `${op.heavy}: more of your searches, imports and exports wait for their turn than are let wait; retry after \`Retry-After\` seconds`,
        { 'Retry-After': RESPONSE_HEADERS.retryAfter },
      );
      add(
        503,
        'statement_timeout',
        `${op.heavy}: a database statement ran past the time limit of this work; the message names the limit and what was too large (the same request fails the same way: make it smaller)`,
      );
    }
    if (op.usesDatabase ?? true)
      add(503, 'unavailable', 'a database is unreachable or too slow right now; retry after `Retry-After` seconds', {
        'Retry-After': RESPONSE_HEADERS.retryAfter,
      });
    return errors;
  }

  /** `GET` of the REST API answering a body (JSON, or a download): the ETag middleware serves it, so it is documented. */
  private static hasEtag(op: OperationDoc): boolean {
    const ok = op.responses[200];
    return op.security === 'apiKey' && op.method === 'get' && ok !== undefined && ok.schema !== undefined;
  }

  private buildOperation(
    op: OperationDoc,
    componentOf: (schema: unknown) => unknown,
    requestSchemas: Map<string, unknown>,
  ): Record<string, unknown> {
    const where = `${op.method.toUpperCase()} ${op.path} (${op.operationId})`;
    const security = op.security ?? 'none';
    const idempotent = (op.headers ?? []).some((h) => h.name.toLowerCase() === 'idempotency-key');
    const rateLimited = op.rateLimited ?? security === 'apiKey';
    const crossSite = op.crossSiteCheck ?? (security === 'session' && op.method !== 'get');
    const etag = OpenApiRegistry.hasEtag(op);

    const all: Record<number, ResponseDoc & { extraHeaders?: Record<string, HeaderDoc> }> = {};
    for (const [status, res] of Object.entries(op.responses)) all[Number(status)] = { ...res };
    for (const [statusText, auto] of Object.entries(this.automaticErrors(op))) {
      const status = Number(statusText);
      const declared = all[status];
      if (!declared) {
        all[status] = { description: `${describeCodes(auto.codes)}.`, schema: 'Error', extraHeaders: auto.headers };
      } else {
        const missing = auto.codes.filter(([code]) => !declared.description.includes(`\`${code}\``));
        all[status] = {
          ...declared,
          description: missing.length
            ? `${declared.description} Also ${describeCodes(missing)}.`
            : declared.description,
          extraHeaders: auto.headers,
        };
      }
    }
    if (etag) all[304] = { description: 'Not modified: the `If-None-Match` ETag is still current. No body.' };

    const responses: Record<string, unknown> = {};
    for (const status of Object.keys(all)
      .map(Number)
      .sort((a, b) => a - b)) {
      const res = all[status]!;
      const isError = status >= 400;
      if (res.example !== undefined)
        this.checkExample(
          this.typeBoxSchema(res.schema, `${where} -> ${status}`),
          res.example,
          `the ${status} response of ${where}`,
        );
      const headers: Record<string, HeaderDoc> = { 'X-Request-Id': RESPONSE_HEADERS.requestId };
      if (rateLimited) {
        headers['X-RateLimit-Limit'] = RESPONSE_HEADERS.rateLimitLimit;
        headers['X-RateLimit-Remaining'] = RESPONSE_HEADERS.rateLimitRemaining;
        headers['X-RateLimit-Reset'] = RESPONSE_HEADERS.rateLimitReset;
      }
      if (status === 201) headers.Location = RESPONSE_HEADERS.location;
      if (idempotent && status >= 200 && status < 300) headers['Idempotent-Replayed'] = RESPONSE_HEADERS.replayed;
      if (etag && (status === 200 || status === 304)) headers.ETag = RESPONSE_HEADERS.etag;
      Object.assign(headers, res.extraHeaders, res.headers);
      const schema = this.responseSchema(res.schema);
      const contentType = res.contentType ?? 'application/json';
      responses[String(status)] = {
        description: res.description,
        headers: Object.fromEntries(
          Object.entries(headers).map(([name, h]) => [
            name,
            SHARED_HEADER_NAMES.get(h)
              ? { $ref: `#/components/headers/${SHARED_HEADER_NAMES.get(h)}` }
              : {
                  description: h.description,
                  ...(h.required ? { required: true } : {}),
                  schema: h.schema ?? { type: 'string' },
                },
          ]),
        ),
        ...(schema || isError
          ? {
              content: {
                [contentType]: {
                  schema: componentOf(schema ?? { $ref: '#/components/schemas/Error' }),
                  ...(res.example !== undefined ? { example: res.example } : {}),
                },
              },
            }
          : {}),
      };
    }

    const headerParams: unknown[] = [];
    for (const h of op.headers ?? []) {
      // Why one definition: every operation taking Idempotency-Key enforces the same rule.
      if (h.name.toLowerCase() === 'idempotency-key')
        headerParams.push({ $ref: '#/components/parameters/IdempotencyKey' });
      else headerParams.push(parameterComponent(h));
    }
    if (crossSite && !(op.headers ?? []).some((h) => h.name.toLowerCase() === 'x-requested-with'))
      headerParams.push({ $ref: '#/components/parameters/XRequestedWith' });
    if (etag) headerParams.push({ $ref: '#/components/parameters/IfNoneMatch' });
    const parameters = [...toParameters(op.params, 'path'), ...toParameters(op.query, 'query'), ...headerParams];

    let requestBody: Record<string, unknown> | undefined;
    if (op.body) {
      const contentType = op.body.contentType ?? 'application/json';
      if (op.body.example !== undefined && isJsonType(contentType))
        this.checkExample(op.body.schema, op.body.example, `the request body of ${where}`);
      let bodySchema = componentOf(stripTypeBox(op.body.schema));
      const mergePatch = op.method === 'patch' && contentType === 'application/json';
      if (mergePatch && !(bodySchema as { $ref?: string }).$ref) {
        // Why a component: the same body is offered as JSON and as JSON Merge Patch; one named schema serves both.
        const name = `${op.operationId[0]!.toUpperCase()}${op.operationId.slice(1)}Request`;
        requestSchemas.set(name, bodySchema);
        bodySchema = { $ref: `#/components/schemas/${name}` };
      }
      const media = { schema: bodySchema, ...(op.body.example !== undefined ? { example: op.body.example } : {}) };
      requestBody = {
        required: op.body.required ?? true,
        content: {
          [contentType]: media,
          // Why: PATCH bodies mean the same as JSON Merge Patch (absent = unchanged); clients that speak it may say so.
          ...(mergePatch ? { [MERGE_PATCH_JSON_TYPE]: media } : {}),
        },
      };
    }

    let description = op.description!;
    if (op.body?.legacyUploadOf)
      description +=
        ` A multipart upload sent here is still accepted as before; it is documented, with its \`file\` ` +
        `part, as \`${op.body.legacyUploadOf}\`, which new clients use.`;
    if (op.cost && op.cost > 1)
      description +=
        ` Counts as ${op.cost} requests for rate limiting` +
        (op.notModifiedCost === undefined
          ? '.'
          : `; answered 304 (a current \`If-None-Match\`), as ${op.notModifiedCost}: the rest is charged only when the document is made.`);
    return {
      operationId: op.operationId,
      summary: op.summary,
      description,
      tags: op.tags,
      'x-retry-safe': op.retrySafe ?? (op.method === 'get' || idempotent),
      // Why both for the REST API: the workspace in the browser calls the same operations with its session.
      security:
        security === 'apiKey' ? [{ apiKey: [] }, { session: [] }] : security === 'session' ? [{ session: [] }] : [],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }

  /**
   * The OpenAPI 3.1 document. Throws, naming the operation, when an example does not match its
   * schema. Inline copies of registered component schemas become references to them, and
   * components nothing refers to are left out.
   */
  document(info: {
    title: string;
    version: string;
    description?: string;
    license?: { name: string; identifier?: string; url?: string };
    contact?: { name?: string; url?: string; email?: string };
  }): Record<string, unknown> {
    const operationIds = new Set(this.operations.map((o) => o.operationId));
    for (const op of this.operations)
      if (op.body?.legacyUploadOf && !operationIds.has(op.body.legacyUploadOf))
        throw new Error(
          `OpenAPI: ${op.method.toUpperCase()} ${op.path} names ${op.body.legacyUploadOf} as the operation ` +
            'documenting its upload, and there is no such operation.',
        );
    const components = new Map<string, string>();
    for (const [name, schema] of this.schemas) components.set(JSON.stringify(stripTypeBox(schema)), name);
    // Why: a schema repeated inline (a model used in a body, an array item) reads better, and
    // generates one client type, as a reference to its component.
    const componentOf = (schema: unknown, self?: string): unknown => {
      if (Array.isArray(schema)) return schema.map((s) => componentOf(s, self));
      if (schema === null || typeof schema !== 'object') return schema;
      const key = JSON.stringify(schema);
      const name = components.get(key);
      if (name && name !== self && key.length > 40) return { $ref: `#/components/schemas/${name}` };
      return Object.fromEntries(
        Object.entries(schema).map(([k, v]) => [
          k,
          k === 'examples' || k === 'example' || k === 'enum' || k === 'const' || k === 'default'
            ? v
            : componentOf(v, self),
        ]),
      );
    };

    const paths: Record<string, Record<string, unknown>> = {};
    const requestSchemas = new Map<string, unknown>();
    const sorted = [...this.operations].sort(
      (a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
    );
    this.badExamples = [];
    for (const op of sorted) {
      paths[op.path] ??= {};
      paths[op.path]![op.method] = this.buildOperation(op, (s) => componentOf(s), requestSchemas);
    }
    if (this.badExamples.length > 0) {
      // Why throw: the interactive reference shows examples as valid values, and generated clients' docs copy them.
      throw new Error(
        `OpenAPI: ` +
          `${this.badExamples.length === 1 ? 'an example does' : `${this.badExamples.length} examples do`} ` +
          `not match their schemas; fix each:\n- ${this.badExamples.join('\n- ')}`,
      );
    }

    const schemas: Record<string, unknown> = { Error: ERROR_SCHEMA, ErrorDetail: ERROR_DETAIL_SCHEMA };
    for (const [name, schema] of [...this.schemas].sort(([a], [b]) => a.localeCompare(b)))
      schemas[name] = componentOf(stripTypeBox(schema), name);
    for (const [name, schema] of requestSchemas) {
      if (schemas[name])
        throw new Error(
          `OpenAPI: the schema name ${name} (the body of a PATCH) is also a registered schema; rename one.`,
        );
      schemas[name] = schema;
    }
    const used = referencedComponents({ paths }, { schemas });
    const pick = <T>(all: Record<string, T>, kind: string) =>
      Object.fromEntries(Object.entries(all).filter(([name]) => used.has(`${kind}/${name}`)));
    const headers = pick(
      Object.fromEntries([...SHARED_HEADER_NAMES].map(([h, name]) => [name, headerComponent(h)])),
      'headers',
    );
    const parameters = pick(
      Object.fromEntries([...SHARED_PARAMETERS].map(([name, h]) => [name, parameterComponent(h)])),
      'parameters',
    );
    const usedSchemas = pick(schemas, 'schemas');
    const usedTags = new Set(this.operations.flatMap((o) => o.tags));

    return {
      openapi: '3.1.0',
      info: {
        title: info.title,
        version: info.version,
        ...(info.description ? { description: info.description } : {}),
        ...(info.contact ? { contact: info.contact } : {}),
        license: info.license ?? { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: '/', description: 'This service.' }],
      tags: [...this.tags].filter(([name]) => usedTags.has(name)).map(([name, description]) => ({ name, description })),
      paths,
      components: {
        schemas: Object.fromEntries(Object.entries(usedSchemas).sort(([a], [b]) => a.localeCompare(b))),
        headers,
        parameters,
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'service_sk_…',
            description:
              'A personal API key: `Authorization: Bearer service_sk_...` (the scheme name is ' +
              'case-insensitive). Without a valid key: 401 `unauthenticated` with ' +
              '`WWW-Authenticate: Bearer`.',
          },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'service_session',
            description:
              'Workspace sign-in session (HttpOnly, SameSite=Strict cookie set by `POST ' +
              '/api/auth/login`; `Secure` when the client reaches the service over HTTPS). ' +
              'State-changing requests must send `X-Requested-With`, and a browser `Origin` ' +
              "must be this service's own origin; otherwise 403 `cross_site_request`. The REST API " +
              '(`/rest/v1`) takes the session too, as the workspace in the browser calls it: then `Authorization` ' +
              'must be absent, state-changing requests must send `X-Requested-With`, a browser `Origin` must be ' +
              "this service's own on every request (CORS never applies to a session), and the user's role and shares decide, with no " +
              "key scope and no client allow-list. A session is counted for rate limiting per user (all of a user's " +
              'sessions share the per-key budget) and not per IP address.',
          },
        },
      },
    };
  }
}

/** `kind/name` of every component referenced, directly or through referenced component schemas, from `root`. */
function referencedComponents(root: unknown, components: { schemas: Record<string, unknown> }): Set<string> {
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/')) {
        const key = v.slice('#/components/'.length);
        if (!used.has(key)) {
          used.add(key);
          if (key.startsWith('schemas/')) visit(components.schemas[key.slice('schemas/'.length)]);
        }
      } else visit(v);
    }
  };
  visit(root);
  return used;
}

function toParameters(schema: TSchema | undefined, location: 'path' | 'query'): unknown[] {
  if (!schema) return [];
  const s = stripTypeBox(schema) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(s.properties ?? {}).map(([name, prop]) => {
    const { description, ...rest } = prop;
    return {
      name,
      in: location,
      required: location === 'path' || (s.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}
