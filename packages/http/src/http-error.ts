/**
 * The one error base class. `code` is stable for clients; `expose` is false for 5xx so their
 * messages never reach a client.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly expose: boolean;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(status: number, code: string, message: string, options: { details?: unknown; cause?: unknown; headers?: Record<string, string>; expose?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.expose = options.expose ?? status < 500;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export interface ValidationIssue {
  path: string;
  message: string;
}

export class ValidationError extends HttpError {
  constructor(message: string, details: ValidationIssue[]) {
    super(400, 'validation_failed', message, { details });
  }
}

export class BadRequestError extends HttpError {
  constructor(message: string, code = 'bad_request') {
    super(400, code, message);
  }
}

export class UnauthenticatedError extends HttpError {
  constructor(message = 'Missing or invalid credentials.') {
    super(401, 'unauthenticated', message);
  }
}

export class ForbiddenError extends HttpError {
  constructor(code: 'forbidden' | 'read_only_key' | 'client_not_allowed' | 'api_not_licensed' | string, message: string) {
    super(403, code, message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message = 'The requested resource was not found.') {
    super(404, 'not_found', message);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string, code = 'conflict', details?: unknown) {
    super(409, code, message, { details });
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(message: string) {
    super(413, 'payload_too_large', message);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message: string) {
    super(415, 'unsupported_media_type', message);
  }
}

export class UnprocessableError extends HttpError {
  constructor(code: string, message: string, details?: unknown) {
    super(422, code, message, { details });
  }
}

export class RateLimitedError extends HttpError {
  constructor(retryAfterSeconds: number) {
    super(429, 'rate_limited', `Too many requests; retry in ${retryAfterSeconds} s.`, { headers: { 'Retry-After': String(retryAfterSeconds) } });
  }
}

export class UnavailableError extends HttpError {
  constructor(message = 'A database the request needs is unavailable; try again shortly.', cause?: unknown) {
    super(503, 'unavailable', message, { cause, expose: true });
  }
}
