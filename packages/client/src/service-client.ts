import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import createClient, { type Client } from 'openapi-fetch';
import { ApiError } from './api-error.ts';
import type { paths } from './generated/openapi.ts';
import { nextLink } from './link-header.ts';
import { requestLineOf, retryingFetch, type RetryOptions } from './retrying-fetch.ts';

export interface ServiceClientOptions {
  /** Where the service is: `https://reports.example.com` (without `/rest/v1`). */
  baseUrl: string;
  /** A personal API key, `service_sk_...`. */
  apiKey: string;
  /** How calls are retried on 429, 503, 409 `idempotency_in_progress` and network failures. */
  retry?: RetryOptions;
  /** The fetch to send requests with; default the global one. */
  fetch?: (request: Request) => Promise<Response>;
}

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
type GetOk<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? R : never;

/** The paths of lists: GET answering a JSON array, with no path parameter. */
export type ListPath = {
  [P in keyof paths]: P extends `${string}{${string}` ? never : JsonOf<GetOk<P>> extends readonly unknown[] ? P : never;
}[keyof paths];

/** A row of a list. */
export type ListRow<P extends ListPath> = JsonOf<GetOk<P>> extends ReadonlyArray<infer Row> ? Row : never;

/** The query parameters a list takes (filters, `q`, `per_page`). */
export type ListQuery<P extends ListPath> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? NonNullable<Q>
  : never;

/** The paths of downloads: GET answering a file (an export, evidence bytes, a Word template). */
export type DownloadPath = {
  [P in keyof paths]: GetOk<P> extends { content: infer C } ? ('application/json' extends keyof C ? never : P) : never;
}[keyof paths];

/** The path parameters of a download (`{ id }`). */
export type DownloadParams<P extends DownloadPath> = paths[P] extends { get: { parameters: { path: infer A } } }
  ? A
  : never;

export interface Download {
  /** Where the file was written. */
  file: string;
  /** The name the service suggests (`Content-Disposition`), if any. */
  fileName: string | null;
  contentType: string;
  size: number;
  /** The `ETag` of what was downloaded: send it as `ifNoneMatch` to download only when it changed. */
  etag: string | null;
}

/** True for a value that must travel as a file part. */
function isFile(value: unknown): value is Blob {
  return value instanceof Blob;
}

/**
 * How request bodies are sent: a body holding a file (a Blob or File) as multipart/form-data,
 * its other fields as text; any other body as JSON.
 */
export function serializeBody(body: unknown): string | FormData {
  if (typeof body !== 'object' || body === null || !Object.values(body).some(isFile)) return JSON.stringify(body);
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    if (isFile(value)) form.set(name, value, value instanceof File ? value.name : name);
    else form.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form;
}

/** `attachment; filename="x.docx"; filename*=UTF-8''x.docx` -> `x.docx` (the UTF-8 one when present). */
export function fileNameOf(contentDisposition: string | null): string | null {
  if (!contentDisposition) return null;
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(contentDisposition);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]!.trim());
    } catch {
      // An undecodable name: fall back to the plain one.
    }
  }
  return /filename="([^"]*)"/i.exec(contentDisposition)?.[1] ?? null;
}

/** The success branch of what a typed call answered (openapi-fetch: `{ data, response }`). */
type Success<R> = Extract<R, { error?: never }>;

function isSuccess<R extends { response: Response; error?: unknown }>(result: R): result is Success<R> {
  return result.error === undefined && result.response.ok;
}

/**
 * What a call of the typed client answered, unwrapped: the data of a success; an error answer
 * as an ApiError (status, `code`, `details`, request id).
 */
export async function ok<R extends { response: Response; error?: unknown; data?: unknown }>(
  call: Promise<R>,
): Promise<Success<R>['data']> {
  const result = await call;
  if (isSuccess(result)) return result.data;
  throw ApiError.fromAnswer(result.response, result.error, requestLineOf(result.response));
}

export interface ServiceClient {
  /**
   * The typed client of every operation (openapi-fetch over the types generated from the
   * service's OpenAPI document): `api.POST('/rest/v1/reports', { body })`. Wrap a call in `ok()`
   * to get its data or an ApiError. Bodies holding a File go as multipart.
   */
  api: Client<paths>;
  /** Every row of a list, page by page, following `Link: rel="next"` (100 rows a page unless `per_page` says). */
  paginate<P extends ListPath>(path: P, query?: ListQuery<P>): AsyncGenerator<ListRow<P>>;
  /**
   * A download (an export, evidence bytes, a Word template) written to `to`, streamed; with
   * `ifNoneMatch`, nothing is written and null comes back while the file is unchanged (304).
   */
  download<P extends DownloadPath>(
    path: P,
    params: DownloadParams<P>,
    to: string,
    options?: { ifNoneMatch?: string },
  ): Promise<Download | null>;
}

/** Fills `{name}` in a path template. */
function fillPath(template: string, params: unknown): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value: unknown = typeof params === 'object' && params !== null ? Reflect.get(params, name) : undefined;
    if (value === undefined || value === null) throw new Error(`${template} needs the path parameter ${name}.`);
    return encodeURIComponent(String(value));
  });
}

function queryString(query: object | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  return search.toString();
}

/**
 * A client of the service's REST API: the typed calls of every operation, plus what every
 * consumer otherwise writes by hand: the API key on every request, an `Idempotency-Key` on every
 * creating call and retries that keep it, waits on 429 and 503 by `Retry-After` (bounded),
 * paging by `Link`, typed errors, uploads of Files (see fileFrom) and downloads to disk.
 */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const send = retryingFetch({ origin: baseUrl, apiKey: options.apiKey, retry: options.retry, fetch: options.fetch });
  const api = createClient<paths>({ baseUrl, fetch: send, bodySerializer: serializeBody });

  async function getOrThrow(url: string, headers: Record<string, string> = {}): Promise<Response> {
    const response = await send(new Request(url, { headers }));
    if (response.ok || response.status === 304) return response;
    const body: unknown = await response.json().catch(() => null);
    throw ApiError.fromAnswer(response, body, `GET ${new URL(url).pathname}`);
  }

  return {
    api,

    async *paginate(path, query) {
      const search = queryString({ per_page: 100, ...query });
      let url: string | null = `${baseUrl}${path}${search ? `?${search}` : ''}`;
      while (url) {
        const response = await getOrThrow(url);
        const rows: unknown = await response.json();
        if (!Array.isArray(rows)) throw new Error(`GET ${path} did not answer a list.`);
        yield* rows;
        url = nextLink(response.headers.get('Link'));
      }
    },

    async download(path, params, to, downloadOptions = {}) {
      const url = `${baseUrl}${fillPath(path, params)}`;
      const response = await getOrThrow(
        url,
        downloadOptions.ifNoneMatch ? { 'If-None-Match': downloadOptions.ifNoneMatch } : {},
      );
      if (response.status === 304) return null;
      if (!response.body) throw new Error(`GET ${path} answered no body.`);
      // Why a temporary name: a failed download never leaves half a file under the name asked for.
      const partial = `${to}.part`;
      try {
        await pipeline(Readable.fromWeb(response.body), createWriteStream(partial));
        await rename(partial, to);
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
      return {
        file: to,
        fileName: fileNameOf(response.headers.get('Content-Disposition')),
        contentType: response.headers.get('Content-Type') ?? 'application/octet-stream',
        size: (await stat(to)).size,
        etag: response.headers.get('ETag'),
      };
    },
  };
}
