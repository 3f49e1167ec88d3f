import { WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { Static, TSchema } from 'typebox';
import {
  BadRequestError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
  type ErrorDetail,
} from './http-error.ts';
import type { OpenApiRegistry, OperationDoc } from './openapi-registry.ts';
import { MERGE_PATCH_JSON_TYPE } from './media-types.ts';
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
  /** Multipart uploads, by field name (one file per field). */
  files: Record<string, UploadedFile>;
  /** True when the body arrived as multipart/form-data (an upload) rather than JSON. */
  multipart: boolean;
}

type StaticOr<T, D> = T extends TSchema ? Static<T> : D;

export interface RouteDefinition<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
> extends Omit<OperationDoc, 'params' | 'query' | 'body'> {
  params?: P;
  query?: Q;
  body?: {
    schema: B & TSchema;
    contentType?: 'application/json' | 'multipart/form-data';
    required?: boolean;
    example?: unknown;
    /** Largest accepted body or file; defaults to the app-wide JSON cap. */
    maxBytes?: number;
    /** Multipart: the file field names accepted (one file each). */
    fileFields?: string[];
    /** A JSON route that also accepts an upload: multipart bodies are read and validated with this instead. */
    multipart?: { schema: TSchema; maxBytes: number; fileFields: string[] };
  };
  /** Runs before the body is read (authentication, CSRF checks, rate-limit cost). */
  before?: Middleware[];
  /** Runs after parsing and validation, before the handler (e.g. idempotency). */
  use?: Middleware[];
  handler(
    ctx: Context,
    input: RouteInput<StaticOr<P, Record<string, never>>, StaticOr<Q, Record<string, never>>, StaticOr<B, undefined>>,
  ): Promise<void> | void;
}

export interface RouteDefaults {
  bodyLimitBytes: number;
  /** Where multipart uploads are written while a request runs; default: the system temporary directory. */
  uploadDir?: string;
}

function toKoaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

function hasBody(ctx: Context): boolean {
  return Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
}

function jsonBodyParser(limit: number, method: string): Middleware {
  const types = method === 'patch' ? ['application/json', MERGE_PATCH_JSON_TYPE] : ['application/json'];
  const parse = koaBody({
    json: true,
    jsonLimit: limit,
    jsonStrict: true,
    jsonTypes: types,
    multipart: false,
    urlencoded: false,
    text: false,
    patchNode: false,
    patchKoa: true,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  });
  return async (ctx, next) => {
    // Why only these exact types: any other type (`application/vnd.api+json`, a form) would not be
    // parsed and the client would get a misleading "needs a JSON body"; 415 says what to send.
    if (hasBody(ctx) && !ctx.is(types)) {
      throw new UnsupportedMediaTypeError(`Send the body as ${types.join(' or ')}.`);
    }
    await parse(ctx, next);
  };
}

/** Removes a temporary upload once formidable's write stream to it is closed, so nothing recreates it. */
async function removeUpload(file: { filepath: string }): Promise<void> {
  // Why by reflection: formidable keeps the stream in a field that is not part of its typed API.
  const stream: unknown = Reflect.get(file, '_writeStream');
  if (stream instanceof WriteStream && !stream.closed) {
    await new Promise<void>((resolve) => {
      stream.once('close', () => resolve());
      if (!stream.writableFinished) stream.destroy();
    });
  }
  await rm(file.filepath, { force: true });
}

// Why these numbers: form fields are short (ids, a caption, a format name); the rest is framing.
const MAX_FIELDS = 20;
const MAX_FIELDS_BYTES = 64 * 1024;
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** formidable's error codes (formidable/src/FormidableError.js) this parser answers specially. */
const FORMIDABLE_MALFORMED = new Set([1003, 1011, 1012, 1013, 1014]);

function multipartBodyParser(
  maxBytes: number,
  fileFields: string[],
  uploadDirOf: () => string | undefined,
): Middleware {
  return async (ctx, next) => {
    const uploadDir = uploadDirOf();
    if (!ctx.is('multipart/form-data')) throw new UnsupportedMediaTypeError('Send the upload as multipart/form-data.');
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > maxBytes * fileFields.length + MAX_FIELDS_BYTES + MULTIPART_OVERHEAD_BYTES) {
      throw new PayloadTooLargeError(`The upload is larger than this endpoint accepts (${maxBytes} bytes per file).`);
    }
    if (uploadDir) await mkdir(uploadDir, { recursive: true });
    const created: Array<{ filepath: string }> = [];
    const problems: ErrorDetail[] = [];
    const seen = new Set<string>();
    const parse = koaBody({
      multipart: true,
      json: false,
      urlencoded: false,
      text: false,
      patchNode: false,
      patchKoa: true,
      formidable: {
        ...(uploadDir ? { uploadDir } : {}),
        maxFileSize: maxBytes,
        maxTotalFileSize: maxBytes * fileFields.length,
        maxFields: MAX_FIELDS,
        maxFieldsSize: MAX_FIELDS_BYTES,
        allowEmptyFiles: true,
        minFileSize: 0,
        // Why here and not maxFiles: a file part we do not want is never written to disk (maxFiles
        // answers 413 only after opening the extra file, and leaves it behind).
        onPart(part, handlePart) {
          if (!part.mimetype) return handlePart(part);
          const name = String(part.name ?? '');
          if (!fileFields.includes(name))
            problems.push({
              path: `/${name}`,
              message: `is not a file field here (expected: ${fileFields.join(', ')})`,
            });
          else if (seen.has(name))
            problems.push({ path: `/${name}`, message: 'holds more than one file; send exactly one' });
          else {
            seen.add(name);
            return handlePart(part);
          }
        },
        onFileBegin(_name, file) {
          created.push(file);
        },
      },
    });
    const cleanUp = () => Promise.all(created.map(removeUpload));
    try {
      try {
        await parse(ctx, async () => {});
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (typeof code === 'number' && FORMIDABLE_MALFORMED.has(code))
          throw new BadRequestError(
            'The multipart body could not be read; send a well-formed multipart/form-data request.',
          );
        if (code === 1009 || code === 1016)
          throw new PayloadTooLargeError(`The uploaded file is larger than this endpoint accepts (${maxBytes} bytes).`);
        throw err;
      }
      if (problems.length > 0) {
        throw new ValidationError(
          `The form field ${problems[0]!.path} ${problems[0]!.message}.`,
          problems.slice(0, 50),
        );
      }
      await next();
    } finally {
      await cleanUp();
    }
  };
}

/**
 * Binds one route: body parsing with its cap, validation of path, query and body against the
 * TypeBox schemas, the route's own middleware, then the handler. The same schemas document the
 * route in the OpenAPI registry, so the reference cannot drift from what is enforced.
 */
export function defineRoute<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
>(router: Router, registry: OpenApiRegistry, defaults: RouteDefaults, route: RouteDefinition<P, Q, B>): void {
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
          alternatives: route.body.multipart
            ? [{ contentType: 'multipart/form-data', schema: route.body.multipart.schema }]
            : undefined,
        }
      : undefined,
    responses: route.responses,
    rateLimited: route.rateLimited,
    crossSiteCheck: route.crossSiteCheck,
    adminOnly: route.adminOnly,
    usesDatabase: route.usesDatabase,
    cost: route.cost,
  });

  const paramsValidator = route.params ? new Validator(route.params, 'path parameters') : null;
  const queryValidator = route.query ? new Validator(route.query, 'query') : null;
  const bodyValidator = route.body
    ? new Validator(route.body.schema, route.body.contentType === 'multipart/form-data' ? 'form field' : 'body')
    : null;
  // Why: a route either always takes an upload, or takes JSON and optionally an upload instead.
  const alwaysMultipart = route.body?.contentType === 'multipart/form-data';
  const alternative = route.body?.multipart;
  const alternativeValidator = alternative ? new Validator(alternative.schema, 'form field') : null;
  const stack: Middleware[] = [...(route.before ?? [])];
  if (route.body) {
    const json = alwaysMultipart ? null : jsonBodyParser(route.body.maxBytes ?? defaults.bodyLimitBytes, route.method);
    const upload = alwaysMultipart
      ? multipartBodyParser(
          route.body.maxBytes ?? defaults.bodyLimitBytes,
          route.body.fileFields ?? ['file'],
          () => defaults.uploadDir,
        )
      : alternative
        ? multipartBodyParser(alternative.maxBytes, alternative.fileFields, () => defaults.uploadDir)
        : null;
    stack.push((ctx, next) => {
      ctx.state.multipart =
        upload !== null && (alwaysMultipart || ctx.is('multipart/form-data') === 'multipart/form-data');
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
          if (
            !(alternative?.fileFields ?? route.body!.fileFields ?? ['file']).includes(field) ||
            (Array.isArray(f) && f.length > 1)
          ) {
            throw new ValidationError(`The form field /${field} is not one file of an accepted file field.`, [
              { path: `/${field}`, message: 'must be exactly one file of an accepted file field' },
            ]);
          }
          files[field] = Array.isArray(f) ? f[0]! : f;
        }
        body = (alternativeValidator ?? bodyValidator).parse(raw ?? {}, { convert: true });
      } else {
        const present =
          raw !== undefined &&
          !(typeof raw === 'object' && raw !== null && Object.keys(raw).length === 0 && !ctx.get('content-length'));
        if (!present && route.body!.required !== false) {
          throw new ValidationError('This endpoint needs a JSON body.', [
            { path: '/', message: 'a JSON body is required' },
          ]);
        }
        body = present ? bodyValidator.parse(raw) : undefined;
      }
    }
    ctx.state.input = { params, query, body, files, multipart } satisfies RouteInput<unknown, unknown, unknown>;
    await next();
  });
  stack.push(...(route.use ?? []));
  stack.push(async (ctx) => {
    await route.handler(ctx, ctx.state.input);
  });
  router.register(toKoaPath(route.path), [route.method.toUpperCase()], stack);
}
