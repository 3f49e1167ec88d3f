import { rm } from 'node:fs/promises';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { Static, TSchema } from 'typebox';
import { BadRequestError, UnsupportedMediaTypeError } from './http-error.ts';
import type { OpenApiRegistry, OperationDoc } from './openapi-registry.ts';
import { Validator } from './validate.ts';

export interface UploadedFile {
  /** Temporary path; removed when the request ends. */
  filepath: string;
  originalFilename: string | null;
  mimetype: string | null;
  size: number;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** Multipart uploads, by field name. */
  files: Record<string, UploadedFile>;
}

type StaticOr<T, D> = T extends TSchema ? Static<T> : D;

export interface RouteDefinition<P extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined, B extends TSchema | undefined = undefined>
  extends Omit<OperationDoc, 'params' | 'query' | 'body'> {
  params?: P;
  query?: Q;
  body?: {
    schema: B & TSchema;
    contentType?: 'application/json' | 'multipart/form-data';
    required?: boolean;
    example?: unknown;
    /** Largest accepted body or file; defaults to the app-wide JSON cap. */
    maxBytes?: number;
    /** Multipart: the file field names accepted. */
    fileFields?: string[];
    /** A JSON route that also accepts an upload: multipart bodies are read and validated with this instead. */
    multipart?: { schema: TSchema; maxBytes: number; fileFields: string[] };
  };
  /** Runs before the body is read (authentication, CSRF checks, rate-limit cost). */
  before?: Middleware[];
  /** Runs after parsing and validation, before the handler (e.g. idempotency). */
  use?: Middleware[];
  handler(ctx: Context, input: RouteInput<StaticOr<P, Record<string, never>>, StaticOr<Q, Record<string, never>>, StaticOr<B, undefined>>): Promise<void> | void;
}

export interface RouteDefaults {
  bodyLimitBytes: number;
}

function toKoaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

function jsonBodyParser(limit: number): Middleware {
  const parse = koaBody({ json: true, jsonLimit: limit, jsonStrict: true, multipart: false, urlencoded: false, text: false, patchNode: false, patchKoa: true, parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE] });
  return async (ctx, next) => {
    const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
    if (hasBody && !ctx.is('application/json', '+json')) {
      throw new UnsupportedMediaTypeError('Send the body as application/json.');
    }
    await parse(ctx, next);
  };
}

function multipartBodyParser(maxBytes: number, fileFields: string[]): Middleware {
  const parse = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    patchNode: false,
    patchKoa: true,
    formidable: { maxFileSize: maxBytes, maxTotalFileSize: maxBytes, maxFiles: fileFields.length, maxFields: 20, maxFieldsSize: 64 * 1024, allowEmptyFiles: true, minFileSize: 0 },
  });
  return async (ctx, next) => {
    if (!ctx.is('multipart/form-data')) throw new UnsupportedMediaTypeError('Send the upload as multipart/form-data.');
    await parse(ctx, async () => {});
    try {
      await next();
    } finally {
      const files = (ctx.request as { files?: Record<string, unknown> }).files ?? {};
      for (const f of Object.values(files).flat()) {
        const path = (f as { filepath?: string }).filepath;
        if (path) await rm(path, { force: true });
      }
    }
  };
}

/**
 * Binds one route: body parsing with its cap, validation of path, query and body against the
 * TypeBox schemas, the route's own middleware, then the handler. The same schemas document the
 * route in the OpenAPI registry, so the reference cannot drift from what is enforced.
 */
export function defineRoute<P extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined, B extends TSchema | undefined = undefined>(
  router: Router,
  registry: OpenApiRegistry,
  defaults: RouteDefaults,
  route: RouteDefinition<P, Q, B>,
): void {
  registry.addOperation({
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags: route.tags,
    security: route.security,
    params: route.params,
    query: route.query,
    headers: route.headers,
    body: route.body
      ? {
          schema: route.body.schema,
          contentType: route.body.contentType,
          required: route.body.required,
          example: route.body.example,
          alternatives: route.body.multipart ? [{ contentType: 'multipart/form-data', schema: route.body.multipart.schema }] : undefined,
        }
      : undefined,
    responses: route.responses,
  });

  const paramsValidator = route.params ? new Validator(route.params, 'path parameters') : null;
  const queryValidator = route.query ? new Validator(route.query, 'query') : null;
  const bodyValidator = route.body ? new Validator(route.body.schema, route.body.contentType === 'multipart/form-data' ? 'form field' : 'body') : null;
  // Why: a route either always takes an upload, or takes JSON and optionally an upload instead.
  const alwaysMultipart = route.body?.contentType === 'multipart/form-data';
  const alternative = route.body?.multipart;
  const alternativeValidator = alternative ? new Validator(alternative.schema, 'form field') : null;
  const stack: Middleware[] = [...(route.before ?? [])];
  if (route.body) {
    const json = alwaysMultipart ? null : jsonBodyParser(route.body.maxBytes ?? defaults.bodyLimitBytes);
    const upload = alwaysMultipart
      ? multipartBodyParser(route.body.maxBytes ?? defaults.bodyLimitBytes, route.body.fileFields ?? ['file'])
      : alternative
        ? multipartBodyParser(alternative.maxBytes, alternative.fileFields)
        : null;
    stack.push((ctx, next) => {
      ctx.state.multipart = upload !== null && (alwaysMultipart || ctx.is('multipart/form-data') === 'multipart/form-data');
      return ctx.state.multipart ? upload!(ctx, next) : json!(ctx, next);
    });
  }
  stack.push(async (ctx, next) => {
    const multipart = ctx.state.multipart === true;
    const params = paramsValidator ? paramsValidator.parse(ctx.params) : {};
    const query = queryValidator ? queryValidator.parse({ ...ctx.query }, { convert: true }) : {};
    let body: unknown;
    const files: Record<string, UploadedFile> = {};
    if (bodyValidator) {
      const raw = (ctx.request as { body?: unknown }).body;
      if (multipart) {
        const uploaded = (ctx.request as { files?: Record<string, UploadedFile | UploadedFile[]> }).files ?? {};
        for (const [field, f] of Object.entries(uploaded)) {
          if (!(alternative?.fileFields ?? route.body!.fileFields ?? ['file']).includes(field)) throw new BadRequestError(`Unexpected file field "${field}".`);
          files[field] = Array.isArray(f) ? f[0]! : f;
        }
        body = (alternativeValidator ?? bodyValidator).parse(raw ?? {}, { convert: true });
      } else {
        const present = raw !== undefined && !(typeof raw === 'object' && raw !== null && Object.keys(raw).length === 0 && !ctx.get('content-length'));
        if (!present && route.body!.required !== false) {
          throw new BadRequestError('This endpoint needs a JSON body.', 'validation_failed');
        }
        body = present ? bodyValidator.parse(raw) : undefined;
      }
    }
    ctx.state.input = { params, query, body, files };
    await next();
  });
  stack.push(...(route.use ?? []));
  stack.push(async (ctx) => {
    await route.handler(ctx, ctx.state.input);
  });
  router.register(toKoaPath(route.path), [route.method.toUpperCase()], stack);
}
