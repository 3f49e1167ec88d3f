import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

// Why: ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as (ajv: Ajv2020) => void;

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type OpenApiDocument = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  operation: Operation;
}

/**
 * Checks responses against the OpenAPI document the server publishes, so the document and the
 * server cannot drift apart: every status an operation answers must be documented for it, and a
 * JSON body must match the documented schema. Used by the test HTTP client on every response.
 */
export class OpenApiResponseCheck {
  private readonly routes: Route[];
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: doc.components }, 'openapi');
    // Longer literal paths first, so `/reports/import-markdown` wins over `/reports/{id}`.
    this.routes = Object.entries(doc.paths)
      .flatMap(([template, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(
            `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}|\{[^}]+\}/g, '[^/]+')}$`,
          ),
          operation,
        })),
      )
      .sort((a, b) => b.template.replace(/\{[^}]+\}/g, '').length - a.template.replace(/\{[^}]+\}/g, '').length);
  }

  /** Problems with this response, or an empty list. Paths the document does not describe are not checked. */
  check(method: string, path: string, status: number, contentType: string, body: unknown): string[] {
    const route = this.routes.find((r) => r.method === method && r.pattern.test(path));
    if (!route) return [];
    const where = `${method} ${route.template} -> ${status}`;
    // Why 500 is exempt: an internal error is never a documented answer (tests provoke one on
    // purpose to prove transactions roll back); its body still has to be the error shape.
    if (status === 500)
      return typeof (body as { error?: { code?: unknown } })?.error?.code === 'string'
        ? []
        : [`${where}: 500 without the error body`];
    const response = route.operation.responses[String(status)] ?? route.operation.responses.default;
    if (!response)
      return [
        `${where}: status ${status} is not documented (documented: ` +
          `${Object.keys(route.operation.responses).join(', ')})`,
      ];
    if (status === 304 || status === 204 || !contentType.includes('json')) return [];
    const media =
      response.content?.['application/json'] ??
      Object.entries(response.content ?? {}).find(([type]) => type.includes('json'))?.[1];
    if (!media?.schema) return [`${where}: JSON body but no JSON schema documented`];
    const key = `${route.method} ${route.template} ${status}`;
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      const schema = JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/', '"openapi#/components/'));
      const compiled = this.ajv.compile(schema);
      this.compiled.set(key, compiled);
      validate = compiled;
    }
    if (validate(body)) return [];
    return (validate.errors ?? [])
      .slice(0, 5)
      .map(
        (e) =>
          `${where}: body${e.instancePath} ` +
          `${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
      );
  }
}

const byOrigin = new Map<string, Promise<OpenApiResponseCheck | null>>();

/** The check for the server at `origin`, built once from its published document. */
export function openApiResponseCheckFor(origin: string): Promise<OpenApiResponseCheck | null> {
  let check = byOrigin.get(origin);
  if (!check) {
    check = fetch(`${origin}/api/rest-docs/openapi`)
      .then(async (res) => (res.ok ? new OpenApiResponseCheck((await res.json()) as OpenApiDocument) : null))
      .catch(() => null);
    byOrigin.set(origin, check);
  }
  return check;
}
