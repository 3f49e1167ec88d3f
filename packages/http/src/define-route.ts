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
import { assertJsonDepth } from './json-depth.ts';
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
    /**
     * Multipart: the file field names accepted (one file each). Each is a `format: binary` property
     * of the schema; the ones the schema lists in `required` must be sent as files (400 otherwise).
     */
    fileFields?: string[];
    /**
     * A JSON route that also accepts, for clients written when both lived on one operation, the
     * upload that the operation `operationId` documents: multipart bodies are read and validated
     * with this instead. The document lists only the JSON body here (one body per operation is
     * what client generators handle) and says which operation takes the upload.
     */
    legacyUpload?: { schema: TSchema; maxBytes: number; fileFields: string[]; operationId: string };
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
    // Why before anything else: every later walk of the body (the U+0000 check, validation, the
    // idempotency fingerprint) may recurse; a body nested 100,000 levels deep must not reach them.
    await parse(ctx, async () => {
      assertJsonDepth((ctx.request as { body?: unknown }).body);
      await next();
    });
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
 * The schema multipart text fields are validated with: the declared one without its file fields,
 * which arrive as files (`RouteInput.files`), not as fields.
 */
function formFieldsSchema(schema: TSchema, fileFields: readonly string[]): TSchema {
  const declared = schema as TSchema & { properties?: Record<string, unknown>; required?: string[] };
  if (!declared.properties) return schema;
  const properties = Object.fromEntries(Object.entries(declared.properties).filter(([k]) => !fileFields.includes(k)));
  const required = (declared.required ?? []).filter((k) => !fileFields.includes(k));
  // Why a plain JSON Schema copy: TypeBox compiles those too, and the declared schema stays as documented.
  const { required: _required, ...rest } = declared;
  return { ...rest, properties, ...(required.length > 0 ? { required } : {}) } as TSchema;
}

/** The file fields a multipart schema requires (`required` and declared as files). */
function requiredFileFields(schema: TSchema, fileFields: readonly string[]): string[] {
  return ((schema as { required?: string[] }).required ?? []).filter((k) => fileFields.includes(k));
}

/**
 * The upload in a file field the route's schema requires. defineRoute has already answered 400 when
 * it is missing; this answers the same should a handler ask for a field its schema does not require.
 */
export function requiredFile(files: Record<string, UploadedFile>, field: string): UploadedFile {
  const file = files[field];
  if (file === undefined) throw missingFileError([field]);
  return file;
}

function missingFileError(fields: readonly string[]): ValidationError {
  return new ValidationError(
    `The form needs a file field named "${fields[0]}".`,
    fields.map((field) => ({ path: `/${field}`, message: 'is required' })),
  );
}

/** A multipart body's text fields and files, checked against the declared schema; 400 naming the field otherwise. */
function readMultipartInput(
  ctx: Context,
  validator: Validator,
  fileFields: readonly string[],
  requiredFiles: readonly string[],
): { body: unknown; files: Record<string, UploadedFile> } {
  const raw = ((ctx.request as { body?: unknown }).body ?? {}) as Record<string, unknown>;
  const uploaded = (ctx.request as { files?: Record<string, UploadedFile | UploadedFile[]> }).files ?? {};
  const files: Record<string, UploadedFile> = {};
  for (const [field, f] of Object.entries(uploaded)) {
    if (!fileFields.includes(field) || (Array.isArray(f) && f.length > 1)) {
      throw new ValidationError(`The form field /${field} is not one file of an accepted file field.`, [
        { path: `/${field}`, message: 'must be exactly one file of an accepted file field' },
      ]);
    }
    files[field] = Array.isArray(f) ? f[0]! : f;
  }
  const textual = fileFields.filter((field) => field in raw);
  if (textual.length > 0)
    throw new ValidationError(
      `The form field /${textual[0]} must be a file (a part with a filename), not a text field.`,
      textual.map((field) => ({
        path: `/${field}`,
        message: 'must be a file (a part with a filename), not a text field',
      })),
    );
  const missing = requiredFiles.filter((field) => !files[field]);
  if (missing.length > 0) throw missingFileError(missing);
  return { body: validator.parse(raw, { convert: true }), files };
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
          legacyUploadOf: route.body.legacyUpload?.operationId,
        }
      : undefined,
    responses: route.responses,
    rateLimited: route.rateLimited,
    crossSiteCheck: route.crossSiteCheck,
    adminOnly: route.adminOnly,
    usesDatabase: route.usesDatabase,
    heavy: route.heavy,
    usesFileStore: route.usesFileStore,
    cost: route.cost,
    notModifiedCost: route.notModifiedCost,
    retrySafe: route.retrySafe,
  });

  const paramsValidator = route.params ? new Validator(route.params, 'path parameters') : null;
  const queryValidator = route.query ? new Validator(route.query, 'query') : null;
  // Why: a route either always takes an upload, or takes JSON and (for older clients) an upload instead.
  const alwaysMultipart = route.body?.contentType === 'multipart/form-data';
  const upload = alwaysMultipart
    ? {
        schema: route.body!.schema as TSchema,
        maxBytes: route.body!.maxBytes ?? defaults.bodyLimitBytes,
        fileFields: route.body!.fileFields ?? ['file'],
      }
    : (route.body?.legacyUpload ?? null);
  const jsonValidator = route.body && !alwaysMultipart ? new Validator(route.body.schema, 'body') : null;
  const uploadValidator = upload
    ? new Validator(formFieldsSchema(upload.schema, upload.fileFields), 'form field')
    : null;
  const uploadRequiredFiles = upload ? requiredFileFields(upload.schema, upload.fileFields) : [];
  const stack: Middleware[] = [...(route.before ?? [])];
  if (route.body) {
    const json = alwaysMultipart ? null : jsonBodyParser(route.body.maxBytes ?? defaults.bodyLimitBytes, route.method);
    const multipart = upload ? multipartBodyParser(upload.maxBytes, upload.fileFields, () => defaults.uploadDir) : null;
    stack.push((ctx, next) => {
      ctx.state.multipart =
        multipart !== null && (alwaysMultipart || ctx.is('multipart/form-data') === 'multipart/form-data');
      return ctx.state.multipart ? multipart!(ctx, next) : json!(ctx, next);
    });
  }
  stack.push(async (ctx, next) => {
    const multipart = ctx.state.multipart === true;
    const params = paramsValidator ? paramsValidator.parse(ctx.params) : {};
    const query = queryValidator ? queryValidator.parse({ ...ctx.query }, { convert: true }) : {};
    let body: unknown;
    let files: Record<string, UploadedFile> = {};
    if (multipart) {
      ({ body, files } = readMultipartInput(ctx, uploadValidator!, upload!.fileFields, uploadRequiredFiles));
    } else if (jsonValidator) {
      const raw = (ctx.request as { body?: unknown }).body;
      const present =
        raw !== undefined &&
        !(typeof raw === 'object' && raw !== null && Object.keys(raw).length === 0 && !ctx.get('content-length'));
      if (!present && route.body!.required !== false) {
        throw new ValidationError('This endpoint needs a JSON body.', [
          { path: '/', message: 'a JSON body is required' },
        ]);
      }
      body = present ? jsonValidator.parse(raw) : undefined;
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
