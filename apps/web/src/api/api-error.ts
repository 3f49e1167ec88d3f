import type { ErrorBody } from './api-types.ts';

/** An error answer of the service: status, the stable `code`, its message and details, and Retry-After. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ReadonlyArray<{ path: string; message: string }> = [],
    /** Seconds to wait, from `Retry-After` (429, 503). */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }

  static async of(response: Response, body?: unknown): Promise<ApiError> {
    const parsed = (body ?? (await response.json().catch(() => null))) as Partial<ErrorBody> | null;
    const retry = Number(response.headers.get('Retry-After'));
    return new ApiError(
      response.status,
      parsed?.error?.code ?? `http_${response.status}`,
      parsed?.error?.message ?? response.statusText,
      parsed?.error?.details ?? [],
      Number.isFinite(retry) && retry > 0 ? retry : null,
    );
  }
}

/** True for a failure to reach the service at all (offline, connection reset). */
export function isNetworkError(err: unknown): boolean {
  return err instanceof TypeError;
}
