import type { Middleware } from 'koa';
import { HttpError, PayloadTooLargeError, StatementTimeoutError, UnsupportedMediaTypeError } from './http-error.ts';
import type { JsonLogger } from './json-logger.ts';

/** Turns a low-level error into an HttpError, or returns null to leave it alone. */
export type ErrorTranslator = (err: unknown) => HttpError | null;

function statusOf(err: unknown): number | undefined {
  const e = err as { status?: unknown; statusCode?: unknown; httpCode?: unknown };
  for (const v of [e?.status, e?.statusCode, e?.httpCode]) if (typeof v === 'number') return v;
  return undefined;
}

/** Errors raised by body parsers (co-body, raw-body, formidable) for bad client input. */
function translateParserError(err: unknown): HttpError | null {
  const e = err as { type?: string; message?: string };
  const status = statusOf(err);
  if (status === 413 || e?.type === 'entity.too.large')
    return new PayloadTooLargeError('The request body is larger than this endpoint accepts.');
  if (status === 415) return new UnsupportedMediaTypeError('This content type is not accepted here.');
  if (e?.type === 'entity.parse.failed' || (status === 400 && err instanceof SyntaxError)) {
    return new HttpError(400, 'malformed_json', 'The request body is not valid JSON.');
  }
  if (status !== undefined && status >= 400 && status <= 501 && !(err instanceof HttpError)) {
    if (status === 405) return new HttpError(405, 'method_not_allowed', 'This method is not allowed on this path.');
    if (status === 501)
      return new HttpError(501, 'not_implemented', 'This method is not implemented.', { expose: true });
    if (e?.type === 'request.aborted')
      return new HttpError(400, 'request_aborted', 'The request was aborted by the client.');
    if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported')
      return new UnsupportedMediaTypeError('Unsupported body encoding.');
    return new HttpError(status, 'bad_request', 'The request could not be read.');
  }
  return null;
}

/**
 * The one place that shapes error bodies and logs failures. Every error body is
 * `{"error":{"code","message"[,"details"]}}`; 5xx messages are generic and logged with the request id.
 */
export function errorMiddleware(logger: JsonLogger, translators: ErrorTranslator[] = []): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (raw) {
      let err: HttpError | null = raw instanceof HttpError ? raw : null;
      for (const t of translators) err ??= t(raw);
      err ??= translateParserError(raw);
      const httpError = err ?? new HttpError(500, 'internal_error', 'Internal server error.', { cause: raw });
      if (httpError instanceof StatementTimeoutError) {
        // Not a failure of the service: work too large for its limit. One line naming the work
        // and its size, without the statement (an insert of thousands of placeholders).
        logger.warn('statement_timeout', {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          message: httpError.message,
        });
      } else if (httpError.status >= 500) {
        const cause = (httpError.cause ?? raw) as { name?: string; message?: string; stack?: string; code?: string };
        logger.error('request_failed', {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: httpError.status,
          code: httpError.code,
          error: { name: cause?.name, code: cause?.code, message: cause?.message, stack: cause?.stack },
        });
      }
      ctx.status = httpError.status;
      for (const [k, v] of Object.entries(httpError.headers ?? {})) ctx.set(k, v);
      const body: { code: string; message: string; details?: unknown } = {
        code: httpError.code,
        message: httpError.expose ? httpError.message : 'Internal server error.',
      };
      if (httpError.details !== undefined && httpError.expose) body.details = httpError.details;
      ctx.body = { error: body };
    }
  };
}
