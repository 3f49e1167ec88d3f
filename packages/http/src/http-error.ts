/**
 * One problem an error is about. `details` of every error body is an array of these, whatever the
 * code, so a client reads it one way: `path` is a JSON Pointer to the input concerned (`/title`,
 * `/findings/3/severity` in a body; `/q` for a query or path parameter, `/Idempotency-Key` for a
 * header, `/file` for an upload, `/` for the request as a whole), `message` says what is wrong there, for a person, and
 * `value`, when
 * present, is a value the client needs to recover (the row's current `updatedAt` on a `conflict`).
 */
export interface ErrorDetail {
  path: string;
  message: string;
  value?: string;
}

/** Kept for callers that still import the old name. */
export type ValidationIssue = ErrorDetail;

function checkDetails(details: unknown): ErrorDetail[] | undefined {
  if (details === undefined) return undefined;
  const ok =
    Array.isArray(details) &&
    details.every(
      (d) =>
        d !== null &&
        typeof d === 'object' &&
        typeof (d as ErrorDetail).path === 'string' &&
        typeof (d as ErrorDetail).message === 'string' &&
        ((d as ErrorDetail).value === undefined || typeof (d as ErrorDetail).value === 'string') &&
        Object.keys(d).every((k) => k === 'path' || k === 'message' || k === 'value'),
    );
  // Why throw: a second shape of `details` would break every client that reads the first; this
  // fails the first test that builds such an error instead of the first client that receives it.
  if (!ok)
    throw new TypeError(
      `HttpError details must be an array of { path, message[, value] } objects, got ` +
        `${JSON.stringify(details)?.slice(0, 200)}`,
    );
  return (details as ErrorDetail[]).map((d) => ({ ...d }));
}

/**
 * The one error base class. `code` is stable for clients; `expose` is false for 5xx so their
 * messages never reach a client. `details` always has the one shape of ErrorDetail[].
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly expose: boolean;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: {
      details?: readonly ErrorDetail[];
      cause?: unknown;
      headers?: Record<string, string>;
      expose?: boolean;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.expose = options.expose ?? status < 500;
    this.details = checkDetails(options.details);
    this.headers = options.headers;
  }
}

export class ValidationError extends HttpError {
  constructor(message: string, details: readonly ErrorDetail[]) {
    super(400, 'validation_failed', message, { details });
  }
}

export class BadRequestError extends HttpError {
  constructor(message: string, code = 'bad_request', details?: readonly ErrorDetail[]) {
    super(400, code, message, { details });
  }
}

/** The challenge a 401 of the REST API carries (RFC 9110 requires one; RFC 6750 names it). */
export const BEARER_CHALLENGE = 'Bearer realm="service"';

export class UnauthenticatedError extends HttpError {
  constructor(message = 'Missing or invalid credentials.', options: { challenge?: string } = {}) {
    super(
      401,
      'unauthenticated',
      message,
      options.challenge ? { headers: { 'WWW-Authenticate': options.challenge } } : {},
    );
  }
}

export class ForbiddenError extends HttpError {
  constructor(
    code: 'forbidden' | 'read_only_key' | 'client_not_allowed' | 'api_not_licensed' | 'cross_site_request' | string,
    message: string,
  ) {
    super(403, code, message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message = 'The requested resource was not found.') {
    super(404, 'not_found', message);
  }
}

/**
 * Why the object form (`{ updatedAt: '...' }`) is still accepted: callers are moving over to
 * ErrorDetail[]; on the wire it becomes `[{ path: '/updatedAt', message, value }]` all the same.
 */
function conflictDetails(
  details: readonly ErrorDetail[] | Readonly<Record<string, string>> | undefined,
): readonly ErrorDetail[] | undefined {
  if (details === undefined || Array.isArray(details)) return details as readonly ErrorDetail[] | undefined;
  return Object.entries(details).map(([key, value]) => ({ path: `/${key}`, message: `is now ${value}`, value }));
}

export class ConflictError extends HttpError {
  constructor(message: string, code = 'conflict', details?: readonly ErrorDetail[] | Readonly<Record<string, string>>) {
    super(409, code, message, { details: conflictDetails(details) });
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(message: string, details?: readonly ErrorDetail[]) {
    super(413, 'payload_too_large', message, { details });
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message: string) {
    super(415, 'unsupported_media_type', message);
  }
}

export class UnprocessableError extends HttpError {
  constructor(code: string, message: string, details?: readonly ErrorDetail[]) {
    super(422, code, message, { details });
  }
}

export class RateLimitedError extends HttpError {
  constructor(retryAfterSeconds: number) {
    super(429, 'rate_limited', `Too many requests; retry in ${retryAfterSeconds} s.`, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

/** Seconds a client is asked to wait after a 503: long enough for a pool or a restarted database to come back. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export class UnavailableError extends HttpError {
  constructor(message = 'A database the request needs is unavailable; try again shortly.', cause?: unknown) {
    super(503, 'unavailable', message, {
      cause,
      expose: true,
      headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
    });
  }
}

/**
 * A statement of work with a time limit of its own (a search, an import, an export) ran past it.
 * Not `unavailable`: the database is there, the work is too large for the limit, and the same
 * request would fail the same way; the message names the limit, its setting and what was too large.
 */
export class StatementTimeoutError extends HttpError {
  constructor(message: string, cause?: unknown) {
    super(503, 'statement_timeout', message, { cause, expose: true });
  }
}

/** More of one caller's heavy requests (searches, imports, exports) wait than are let wait; retry later. */
export class TooManyConcurrentError extends HttpError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, 'too_many_concurrent_requests', message, { headers: { 'Retry-After': String(retryAfterSeconds) } });
  }
}
