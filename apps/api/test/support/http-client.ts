import { retrySafetyOf } from '@service/client';
import { openApiResponseCheckFor } from './openapi-response-check.ts';

/** How often a request is sent in all when no answer comes and the service's client would send it again. */
const NO_ANSWER_ATTEMPTS = 3;

/**
 * `fetch`, sending again after a socket-level failure (`fetch failed`: on a busy machine a kept-alive
 * connection can close under a request) exactly where @service/client would: requests the
 * document says are safe to resend, and keyed ones when the test sent an `Idempotency-Key`.
 * Anything else fails as it did, so a test never hides a request that may have been carried out.
 */
async function fetchAsTheClientWould(url: URL, init: RequestInit & { headers: Record<string, string> }) {
  const method = init.method ?? 'GET';
  const safety = retrySafetyOf(method, url.pathname);
  const keyed = Object.keys(init.headers).some((h) => h.toLowerCase() === 'idempotency-key');
  const resendable = safety === 'safe' || (safety === 'keyed' && keyed);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (err) {
      const noAnswer = err instanceof TypeError && err.message === 'fetch failed';
      if (!noAnswer || !resendable || attempt >= NO_ANSWER_ATTEMPTS) throw err;
    }
  }
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read any field of an answer; OpenApiResponseCheck checks every body against its documented schema.
  body: any;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Sent as JSON unless it is a string, FormData or Uint8Array. */
  body?: unknown;
  token?: string | null;
}

/** A small fetch wrapper for API tests: JSON in, parsed JSON (or text) out. */
export function httpClient(baseUrl: string, defaults: { token?: string; headers?: Record<string, string> } = {}) {
  async function request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...defaults.headers, ...options.headers };
    const token = options.token === undefined ? defaults.token : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: RequestInit['body'];
    if (options.body !== undefined) {
      if (typeof options.body === 'string' || options.body instanceof FormData || options.body instanceof Uint8Array) {
        body = options.body as RequestInit['body'];
      } else {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
    }
    const url = new URL(`${baseUrl}${path}`);
    const res = await fetchAsTheClientWould(url, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    let parsed: unknown = text;
    if (contentType.includes('json') && text) parsed = JSON.parse(text);
    // Why on every response: the OpenAPI document is a product surface; a status or body the
    // document does not state fails the test that saw it, whatever that test was about.
    const problems =
      (await openApiResponseCheckFor(url.origin))?.check(method, url.pathname, res.status, contentType, parsed) ?? [];
    if (problems.length > 0)
      throw new Error(
        `The response does not match the OpenAPI document:\n${problems.join('\n')}\nbody: ${text.slice(0, 500)}`,
      );
    return { status: res.status, headers: res.headers, body: parsed, text };
  }
  return {
    request,
    get: (path: string, options?: RequestOptions) => request('GET', path, options),
    post: (path: string, body?: unknown, options?: RequestOptions) => request('POST', path, { ...options, body }),
    patch: (path: string, body?: unknown, options?: RequestOptions) => request('PATCH', path, { ...options, body }),
    put: (path: string, body?: unknown, options?: RequestOptions) => request('PUT', path, { ...options, body }),
    delete: (path: string, options?: RequestOptions) => request('DELETE', path, options),
  };
}

export type HttpClient = ReturnType<typeof httpClient>;
