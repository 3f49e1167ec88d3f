import { retryAfterSeconds } from './api-error.ts';
import { retrySafetyOf, type RetrySafety } from './operation-retries.ts';

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
 * No answer came for a request (the connection failed or was closed before the answer arrived).
 * `resent` says whether it was sent again: only requests the service's document says are safe to
 * resend are (see RetrySafety); for the others the first may have been carried out, so nothing is
 * assumed either way and the caller must check.
 */
export class NoAnswerError extends Error {
  override readonly name = 'NoAnswerError';

  constructor(
    /** What was asked: `DELETE /rest/v1/findings/{id}` with the id. */
    readonly request: string,
    /** How many times it was sent. */
    readonly attempts: number,
    /** False when the request was not safe to send again: it may have been carried out. */
    readonly resendable: boolean,
    cause: unknown,
  ) {
    super(
      resendable
        ? `${request}: no answer after ${attempts} attempts (${String(cause)}).`
        : `${request}: no answer (${String(cause)}); not sent again because the service does not say it is ` +
            'safe to resend, so it may have been carried out: check before you repeat it.',
      { cause },
    );
  }
}

/** Why an answer is worth waiting for and asking again, and how long; null when it is the answer. */
async function retryReason(
  response: Response,
  keyed: boolean,
  attempt: number,
  maxWaitMs: number,
): Promise<{ reason: string; waitMs: number } | null> {
  if (response.status === 429 || response.status === 503) {
    const asked = retryAfterSeconds(response.headers.get('Retry-After'));
    return {
      reason: `${response.status} ${(await errorCodeOf(response)) ?? response.statusText}`,
      waitMs: asked === null ? backoffMs(attempt, maxWaitMs) : asked * 1000,
    };
  }
  if (response.status === 409 && keyed && (await errorCodeOf(response)) === 'idempotency_in_progress')
    return { reason: '409 idempotency_in_progress', waitMs: backoffMs(attempt, maxWaitMs) };
  return null;
}

/**
 * The request as it is sent: the API key (to the service's own origin only) and, for operations
 * that take one, an `Idempotency-Key` kept for every attempt; with what the document says of
 * sending it again.
 */
function prepare(input: Request, origin: string, apiKey: string): { request: Request; retry: RetrySafety } {
  const url = new URL(input.url);
  const own = url.origin === origin;
  const retry = (own ? retrySafetyOf(input.method, url.pathname) : null) ?? 'unsafe';
  const headers = new Headers(input.headers);
  if (own && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${apiKey}`);
  if (retry === 'keyed' && !headers.has('Idempotency-Key')) headers.set('Idempotency-Key', crypto.randomUUID());
  return { request: new Request(input, { headers }), retry };
}

/**
 * A `fetch` for the service: it adds the API key, gives every operation that takes one an
 * `Idempotency-Key` (kept for every retry of that call, so a retry never creates twice), and
 * sends a request again, bounded by `attempts` and `maxWaitSeconds`:
 * - after 429 `rate_limited` and 503 `unavailable` (nothing was done), once `Retry-After` has passed;
 * - after 409 `idempotency_in_progress` (the first try of the same call is still running);
 * - after a network failure, only when the service's document says the operation is safe to
 *   resend (`x-retry-safe`: reads, deletes into the trash, keyed creates, imports and restores);
 *   any other request fails with NoAnswerError saying it was not sent again.
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
    const { request, retry } = prepare(input, origin, options.apiKey);
    const what = `${input.method} ${new URL(input.url).pathname}`;
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= attempts;
      let response: Response;
      try {
        response = await send(request.clone());
      } catch (err) {
        if (last || retry === 'unsafe') throw new NoAnswerError(what, attempt, retry !== 'unsafe', err);
        const waitMs = backoffMs(attempt, maxWaitMs);
        options.retry?.onRetry?.({ request: what, attempt, waitMs, reason: String(err) });
        await sleep(waitMs);
        continue;
      }
      const again = await retryReason(response, retry === 'keyed', attempt, maxWaitMs);
      if (again === null || last || again.waitMs > maxWaitMs) {
        ASKED.set(response, what);
        return response;
      }
      await response.body?.cancel();
      options.retry?.onRetry?.({ request: what, attempt, ...again });
      await sleep(again.waitMs);
    }
  };
}
