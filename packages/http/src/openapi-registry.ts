import type { TSchema } from 'typebox';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface HeaderDoc {
  description: string;
  schema?: Record<string, unknown>;
}

export interface ResponseDoc {
  description: string;
  /** A schema, or the name of a registered component schema. */
  schema?: TSchema | string | { arrayOf: string };
  contentType?: string;
  headers?: Record<string, HeaderDoc>;
  example?: unknown;
}

export interface OperationDoc {
  method: HttpMethod;
  /** OpenAPI style: `/rest/v1/clients/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security?: 'apiKey' | 'session' | 'none';
  params?: TSchema;
  query?: TSchema;
  headers?: Array<{ name: string; description: string; required?: boolean; schema?: Record<string, unknown> }>;
  body?: { schema: TSchema; contentType?: string; required?: boolean; example?: unknown; alternatives?: Array<{ contentType: string; schema: TSchema }> };
  responses: Record<number, ResponseDoc>;
}

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'Stable machine-readable code.' },
        message: { type: 'string', description: 'What went wrong, for a person.' },
        details: { description: 'Per-field problems for validation errors.' },
      },
    },
  },
};

const STANDARD_ERRORS: Record<number, string> = {
  400: 'The request is malformed or fails validation (`validation_failed`, `malformed_json`).',
  401: 'Missing, unknown, expired or revoked credentials (`unauthenticated`).',
  403: 'Authenticated but not allowed (`read_only_key`, `client_not_allowed`, `api_not_licensed`, `forbidden`).',
  404: 'Not found, or not visible to the caller (`not_found`).',
  413: 'The body is larger than this endpoint accepts (`payload_too_large`).',
  429: 'Rate limit exceeded (`rate_limited`); see `Retry-After`.',
  503: 'A database is unavailable (`unavailable`).',
};

function stripTypeBox(schema: unknown): unknown {
  // TypeBox schemas are plain JSON Schema objects; JSON round-trip drops its symbol-keyed metadata.
  return JSON.parse(JSON.stringify(schema));
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

/** Routes add themselves here as they are defined; the OpenAPI document is generated from it. */
export class OpenApiRegistry {
  private readonly operations: OperationDoc[] = [];
  private readonly schemas = new Map<string, TSchema>();
  private readonly tags = new Map<string, string>();

  addOperation(op: OperationDoc): void {
    if (this.operations.some((o) => o.method === op.method && o.path === op.path)) {
      throw new Error(`OpenAPI: ${op.method.toUpperCase()} ${op.path} is registered twice`);
    }
    this.operations.push(op);
  }

  addSchema(name: string, schema: TSchema): void {
    this.schemas.set(name, schema);
  }

  addTag(name: string, description: string): void {
    this.tags.set(name, description);
  }

  listOperations(): readonly OperationDoc[] {
    return this.operations;
  }

  private responseSchema(schema: ResponseDoc['schema']): unknown {
    if (schema === undefined) return undefined;
    if (typeof schema === 'string') return { $ref: `#/components/schemas/${schema}` };
    if ('arrayOf' in schema && typeof schema.arrayOf === 'string') return { type: 'array', items: { $ref: `#/components/schemas/${schema.arrayOf}` } };
    return stripTypeBox(schema);
  }

  document(info: { title: string; version: string; description?: string }): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    const sorted = [...this.operations].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
    for (const op of sorted) {
      const responses: Record<string, unknown> = {};
      const all: Record<number, ResponseDoc> = { ...op.responses };
      const standard = op.security === 'none' ? [400, 413, 503] : [400, 401, 403, 404, 413, 429, 503];
      for (const status of standard) {
        if (status === 400 && !op.body && !op.query && !op.params) continue;
        if (status === 413 && !op.body) continue;
        all[status] ??= { description: STANDARD_ERRORS[status]!, schema: 'Error' };
      }
      for (const [status, res] of Object.entries(all)) {
        const schema = this.responseSchema(res.schema);
        const isError = Number(status) >= 400;
        responses[status] = {
          description: res.description,
          ...(res.headers ? { headers: Object.fromEntries(Object.entries(res.headers).map(([k, h]) => [k, { description: h.description, schema: h.schema ?? { type: 'string' } }])) } : {}),
          ...(schema || isError
            ? {
                content: {
                  [res.contentType ?? 'application/json']: {
                    schema: schema ?? { $ref: '#/components/schemas/Error' },
                    ...(res.example !== undefined ? { example: res.example } : {}),
                  },
                },
              }
            : {}),
        };
      }
      const parameters = [
        ...toParameters(op.params, 'path'),
        ...toParameters(op.query, 'query'),
        ...(op.headers ?? []).map((h) => ({ name: h.name, in: 'header', required: h.required ?? false, description: h.description, schema: h.schema ?? { type: 'string' } })),
      ];
      paths[op.path] ??= {};
      paths[op.path]![op.method] = {
        operationId: op.operationId,
        summary: op.summary,
        ...(op.description ? { description: op.description } : {}),
        tags: op.tags,
        ...(op.security === 'apiKey' ? { security: [{ apiKey: [] }] } : op.security === 'session' ? { security: [{ session: [] }] } : { security: [] }),
        ...(parameters.length > 0 ? { parameters } : {}),
        ...(op.body
          ? {
              requestBody: {
                required: op.body.required ?? true,
                content: {
                  [op.body.contentType ?? 'application/json']: {
                    schema: stripTypeBox(op.body.schema),
                    ...(op.body.example !== undefined ? { example: op.body.example } : {}),
                  },
                  ...Object.fromEntries((op.body.alternatives ?? []).map((a) => [a.contentType, { schema: stripTypeBox(a.schema) }])),
                },
              },
            }
          : {}),
        responses,
      };
    }
    const schemas: Record<string, unknown> = { Error: ERROR_SCHEMA };
    for (const [name, schema] of [...this.schemas].sort(([a], [b]) => a.localeCompare(b))) schemas[name] = stripTypeBox(schema);
    return {
      openapi: '3.1.0',
      info: { title: info.title, version: info.version, ...(info.description ? { description: info.description } : {}) },
      servers: [{ url: '/' }],
      tags: [...this.tags].map(([name, description]) => ({ name, description })),
      paths,
      components: {
        schemas,
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'service_sk_…', description: 'A personal API key: `Authorization: Bearer service_sk_...`' },
          session: { type: 'apiKey', in: 'cookie', name: 'service_session', description: 'Workspace sign-in session.' },
        },
      },
    };
  }
}
