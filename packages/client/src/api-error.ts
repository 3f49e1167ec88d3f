import type { components } from './generated/openapi.ts';

/** One problem an error names: where (a JSON Pointer to the input) and what is wrong there. */
export type ErrorDetail = components['schemas']['ErrorDetail'];

/**
 * An error answer of the service as an exception: the HTTP status, the stable `code`
 * (`validation_failed`, `not_found`, `conflict`, ...), the message for a person and the `details`,
 * always a list (empty when the answer had none). Its `message` names the request, the status and
 * the code before the service's message:
 * `POST /rest/v1/projects: 422 invalid_reference: The client 3f2b… does not exist or is not visible to you.`
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly ErrorDetail[],
    /** `X-Request-Id` of the answer: quote it to the operator, who finds the request in the service log. */
    readonly requestId: string | null,
    /** `Retry-After` in seconds, when the answer said (429, 503). */
    readonly retryAfterSeconds: number | null,
    /** What was asked: `POST /rest/v1/reports`. */
    readonly request: string,
  ) {
    super(`${request}: ${status} ${code}: ${message}`);
  }

  /** The error of an answer, from its `{"error": {...}}` body when it has one. */
  static fromAnswer(response: Response, body: unknown, request: string): ApiError {
    const error = typeof body === 'object' && body !== null && 'error' in body ? body.error : null;
    const field = (name: string): unknown =>
      typeof error === 'object' && error !== null && name in error ? Reflect.get(error, name) : undefined;
    const code = field('code');
    const message = field('message');
    const details = field('details');
    return new ApiError(
      response.status,
      typeof code === 'string' ? code : `http_${response.status}`,
      typeof message === 'string' ? message : response.statusText || 'The service answered with an error.',
      Array.isArray(details) ? details.filter(isErrorDetail) : [],
      response.headers.get('X-Request-Id'),
      retryAfterSeconds(response.headers.get('Retry-After')),
      request,
    );
  }
}

function isErrorDetail(value: unknown): value is ErrorDetail {
  return (
    typeof value === 'object' &&
    value !== null &&
    'path' in value &&
    typeof value.path === 'string' &&
    'message' in value &&
    typeof value.message === 'string'
  );
}

/** `Retry-After` as seconds: whole seconds, or an HTTP date from now; null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
