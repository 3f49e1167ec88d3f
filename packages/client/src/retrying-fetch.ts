import { randomUUID } from 'node:crypto';
import { retryAfterSeconds } from './api-error.ts';

export interface RetryOptions {
  /** Attempts in all, the first one included. Default 5. */
  attempts?: number;
  /**
   * The longest wait before one retry, in seconds. An answer asking for longer (`Retry-After`) is
   * not retried: it is returned, and becomes an ApiError with `retryAfterSeconds`. Default 60.
   */
  maxWaitSeconds?: number;
  /** Told before each wait (to log it). */
  onRetry?: (event: RetryEvent) => void;
  /** How to wait; tests replace it. Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
}

export interface RetryEvent {
  /** `POST /rest/v1/reports`. */
  request: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** How long the client waits before the next attempt. */
  waitMs: number;
  /** `429 rate_limited`, `503 unavailable`, `409 idempotency_in_progress` or the network error. */
  reason: string;
}

/** What each answer that came through a retrying fetch was asked: `POST /rest/v1/reports`. */
const ASKED = new WeakMap<Response, string>();

/**
 * The request an answer is for (`POST /rest/v1/reports`), for error messages. Answers that did not
 * come through retryingFetch name their path only (a Response does not know its method).
 */
export function requestLineOf(response: Response): string {
  return ASKED.get(response) ?? (response.url ? new URL(response.url).pathname : 'the request');
}

/** Methods whose request may be sent again after a network failure: nothing was created twice. */
const SAFE_TO_RESEND = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** 0.5 s, 1 s, 2 s, ... after a failure that named no wait; never more than `maxMs`. */
function backoffMs(attempt: number, maxMs: number): number {
  return Math.min(500 * 2 ** (attempt - 1), maxMs);
}

async function errorCodeOf(response: Response): Promise<string | null> {
  try {
    const body: unknown = await response.clone().json();
    const error = typeof body === 'object' && body !== null && 'error' in body ? body.error : null;
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : null;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

/**
 * A `fetch` for the service: it adds the API key, gives every POST under `/rest/v1` an
 * `Idempotency-Key` (kept for every retry of that call, so a retry never creates twice), and
 * sends a request again, bounded by `attempts` and `maxWaitSeconds`:
 * - after 429 `rate_limited` and 503 `unavailable`, once `Retry-After` has passed;
 * - after 409 `idempotency_in_progress` (the first try of the same call is still running);
 * - after a network failure, for methods that are safe to resend and for POSTs (they carry a key).
 * The key goes only to the service's own origin.
 */
export function retryingFetch(options: {
  origin: string;
  apiKey: string;
  retry?: RetryOptions;
  fetch?: (request: Request) => Promise<Response>;
}): (request: Request) => Promise<Response> {
  const attempts = Math.max(1, options.retry?.attempts ?? 5);
  const maxWaitMs = Math.max(0, options.retry?.maxWaitSeconds ?? 60) * 1000;
  const sleep = options.retry?.sleep ?? defaultSleep;
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const origin = new URL(options.origin).origin;

  return async (input) => {
    const url = new URL(input.url);
    const headers = new Headers(input.headers);
    if (url.origin === origin && !headers.has('Authorization'))
      headers.set('Authorization', `Bearer ${options.apiKey}`);
    if (input.method === 'POST' && url.pathname.startsWith('/rest/v1/') && !headers.has('Idempotency-Key'))
      headers.set('Idempotency-Key', randomUUID());
    const template = new Request(input, { headers });
    const what = `${input.method} ${url.pathname}`;
    const resendable = SAFE_TO_RESEND.has(input.method) || headers.has('Idempotency-Key');

    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= attempts;
      let response: Response;
      try {
        response = await send(template.clone());
      } catch (err) {
        if (last || !resendable) throw err;
        const waitMs = backoffMs(attempt, maxWaitMs);
        options.retry?.onRetry?.({ request: what, attempt, waitMs, reason: String(err) });
        await sleep(waitMs);
        continue;
      }
      let reason: string | null = null;
      let waitMs = 0;
      if (response.status === 429 || response.status === 503) {
        const asked = retryAfterSeconds(response.headers.get('Retry-After'));
        waitMs = asked === null ? backoffMs(attempt, maxWaitMs) : asked * 1000;
        reason = `${response.status} ${(await errorCodeOf(response)) ?? response.statusText}`;
      } else if (response.status === 409 && headers.has('Idempotency-Key')) {
        if ((await errorCodeOf(response)) === 'idempotency_in_progress') {
          waitMs = backoffMs(attempt, maxWaitMs);
          reason = '409 idempotency_in_progress';
        }
      }
      if (reason === null || last || waitMs > maxWaitMs) {
        ASKED.set(response, what);
        return response;
      }
      await response.body?.cancel();
      options.retry?.onRetry?.({ request: what, attempt, waitMs, reason });
      await sleep(waitMs);
    }
  };
}
