import createClient from 'openapi-fetch';
import type { paths } from '@service/client/types';
import { ApiError } from './api-error.ts';

/** Every state-changing call of a session must carry it (the service refuses cross-site requests without). */
const SESSION_HEADERS = { 'X-Requested-With': 'XMLHttpRequest' };

/** A body holding a File goes as multipart (its other fields as text), any other as JSON. */
function serializeBody(body: unknown): string | FormData {
  if (typeof body !== 'object' || body === null || !Object.values(body).some((v) => v instanceof Blob))
    return JSON.stringify(body);
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    if (value instanceof Blob) form.set(name, value, value instanceof File ? value.name : name);
    else form.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form;
}

/**
 * The typed client of the REST API (openapi-fetch over the types generated from the service's
 * OpenAPI document, `@service/client`), with the signed-in session: the cookie goes by itself.
 */
export const api = createClient<paths>({
  baseUrl: globalThis.location?.origin ?? '',
  headers: SESSION_HEADERS,
  credentials: 'same-origin',
  bodySerializer: serializeBody,
});

/** The data of a successful call, or the ApiError of its answer. */
export async function call<D>(request: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const { data, error, response } = await request;
  if (!response.ok || error !== undefined) throw await ApiError.of(response, error);
  return data as D;
}

/** A page of a list with the pagination headers. */
export interface Page<Row> {
  rows: Row[];
  total: number;
  pages: number;
}

export async function callPage<Row>(
  request: Promise<{ data?: Row[]; error?: unknown; response: Response }>,
): Promise<Page<Row>> {
  const { data, error, response } = await request;
  if (!response.ok || error !== undefined) throw await ApiError.of(response, error);
  return {
    rows: data ?? [],
    total: Number(response.headers.get('X-Total-Count') ?? data?.length ?? 0),
    pages: Number(response.headers.get('X-Total-Pages') ?? 1),
  };
}

/** Every row of a list: the first page, then the others at once (the headers say how many). */
export async function callAll<Row>(
  fetchPage: (page: number) => Promise<{ data?: Row[]; error?: unknown; response: Response }>,
): Promise<Row[]> {
  const first = await callPage(fetchPage(1));
  const rest = await Promise.all(
    Array.from({ length: Math.max(0, first.pages - 1) }, (_, i) => callPage(fetchPage(i + 2))),
  );
  return [...first.rows, ...rest.flatMap((p) => p.rows)];
}

/** A file the service sends (an export): fetched with the session, saved under the name it suggests. */
export async function downloadFile(path: string): Promise<{ name: string; size: number; type: string }> {
  const response = await fetch(path, { headers: SESSION_HEADERS, credentials: 'same-origin' });
  if (!response.ok) throw await ApiError.of(response);
  const blob = await response.blob();
  const disposition = response.headers.get('Content-Disposition') ?? '';
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  const name = extended ? decodeURIComponent(extended) : (/filename="([^"]*)"/i.exec(disposition)?.[1] ?? 'download');
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { name, size: blob.size, type: blob.type };
}
