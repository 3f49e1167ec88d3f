import { openApiResponseCheckFor } from './openapi-response-check.ts';

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
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
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
