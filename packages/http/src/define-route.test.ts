import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { Type } from 'typebox';
import { waitUntil } from '@service/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createJsonLogger,
  defineRoute,
  type ErrorDetail,
  errorMiddleware,
  NotFoundError,
  OpenApiRegistry,
  requestLog,
} from './index.ts';

let server: Server;
let url: string;
const lines: string[] = [];
const uploadDir = mkdtempSync(path.join(tmpdir(), 'define-route-uploads-'));
const seenInputs: unknown[] = [];

/** The `error` object of a JSON error answer. */
async function errorOf(res: Response): Promise<{ code: string; message: string; details: ErrorDetail[] }> {
  return ((await res.json()) as { error: { code: string; message: string; details: ErrorDetail[] } }).error;
}

beforeAll(async () => {
  const koa = new Koa();
  koa.silent = true;
  const router = new Router();
  const registry = new OpenApiRegistry();
  const logger = createJsonLogger('info', (l) => lines.push(l));
  koa.use(requestLog(logger));
  koa.use(errorMiddleware(logger));
  const defaults = { bodyLimitBytes: 1024, uploadDir };
  defineRoute(router, registry, defaults, {
    method: 'patch',
    path: '/things/{id}',
    operationId: 'updateThing',
    summary: 'test',
    description: 'Changes a thing.',
    tags: ['Test'],
    params: Type.Object({ id: Type.String() }),
    body: {
      schema: Type.Object(
        { name: Type.Optional(Type.String()), tags: Type.Optional(Type.Array(Type.Object({ label: Type.String() }))) },
        { additionalProperties: false },
      ),
    },
    responses: { 200: { description: 'changed' } },
    handler(ctx, input) {
      ctx.body = { id: input.params.id, ...input.body, multipart: input.multipart };
    },
  });
  defineRoute(router, registry, defaults, {
    method: 'post',
    path: '/uploads',
    operationId: 'upload',
    summary: 'test',
    description: 'Takes one file and a caption.',
    tags: ['Test'],
    body: {
      schema: Type.Object(
        { caption: Type.Optional(Type.String()), file: Type.Optional(Type.String({ format: 'binary' })) },
        { additionalProperties: false },
      ),
      contentType: 'multipart/form-data',
      maxBytes: 64 * 1024,
      fileFields: ['file'],
    },
    responses: { 201: { description: 'stored' } },
    handler(ctx, input) {
      seenInputs.push({
        multipart: input.multipart,
        files: Object.keys(input.files),
        leftOnDisk: readdirSync(uploadDir).length,
      });
      ctx.status = 201;
      ctx.body = { caption: input.body.caption ?? null, size: input.files.file?.size ?? null };
    },
  });
  defineRoute(router, registry, defaults, {
    method: 'post',
    path: '/things/{id}',
    operationId: 'createThing',
    summary: 'test',
    description: 'Creates a thing.',
    tags: ['Test'],
    params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
    query: Type.Object({ n: Type.Optional(Type.Integer({ minimum: 1 })) }),
    body: {
      schema: Type.Object(
        { name: Type.String({ minLength: 1 }), severity: Type.Optional(Type.Enum(['low', 'high'])) },
        { additionalProperties: false },
      ),
    },
    responses: { 201: { description: 'created' } },
    handler(ctx, input) {
      ctx.status = 201;
      ctx.body = { id: input.params.id, n: input.query.n ?? null, name: input.body.name };
    },
  });
  router.get('/boom', () => {
    throw new Error('secret internal detail at /etc/passwd');
  });
  koa.use(router.routes());
  koa.use(() => {
    throw new NotFoundError();
  });
  server = createServer(koa.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.close();
  rmSync(uploadDir, { recursive: true, force: true });
});

const id = '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f';
const post = (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${url}${path}`, { method: 'POST', body, headers });

describe('defineRoute and the error mapper', () => {
  it('validates and converts path, query and body, then calls the handler', async () => {
    const res = await post(`/things/${id}?n=3&unknown=1`, JSON.stringify({ name: 'x' }));
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ id, n: 3, name: 'x' });
  });

  it('answers 400 validation_failed naming every bad field', async () => {
    const res = await post(`/things/not-a-uuid?n=0`, JSON.stringify({ name: '', severity: 'urgent', extra: 1 }));
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('validation_failed');
    expect(error.message).toMatch(/path parameters field \/id/);
  });

  it('lists body problems with their paths', async () => {
    const res = await post(`/things/${id}`, JSON.stringify({ name: '', severity: 'urgent', extra: 1 }));
    const error = await errorOf(res);
    expect(error.details).toEqual(
      expect.arrayContaining([
        { path: '/name', message: expect.any(String) },
        { path: '/severity', message: 'must be one of: low, high' },
        { path: '/extra', message: 'is not a known field' },
      ]),
    );
  });

  it('answers 400 for malformed JSON, never 500', async () => {
    const res = await post(`/things/${id}`, '{"name": ');
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe('malformed_json');
  });

  it('answers 400 json_too_deep for a body nested past the limit, before validation walks it', async () => {
    // 100,000 levels are 200 KB; this route's cap is 1 KB, so the limit is shown at 65 levels.
    const res = await post(`/things/${id}`, `{"tags":${'['.repeat(64)}${']'.repeat(64)}}`);
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('json_too_deep');
    expect(error.details).toEqual([{ path: `/tags${'/0'.repeat(63)}`, message: 'is nested more than 64 levels deep' }]);
  });

  it('answers 413 for a body over the cap', async () => {
    const res = await post(`/things/${id}`, JSON.stringify({ name: 'x'.repeat(5000) }));
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe('payload_too_large');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await post(`/things/${id}`, 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe('unsupported_media_type');
  });

  it('answers 400 when the JSON body is missing', async () => {
    const res = await fetch(`${url}/things/${id}`, { method: 'POST' });
    expect(res.status).toBe(400);
  });

  it('answers 415 for a +json type it does not read, instead of a misleading 400', async () => {
    const res = await post(`/things/${id}`, JSON.stringify({ name: 'x' }), {
      'content-type': 'application/vnd.api+json',
    });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).message).toBe('Send the body as application/json.');
  });

  it('accepts application/merge-patch+json on PATCH with the meaning of our JSON PATCH', async () => {
    const res = await fetch(`${url}/things/abc`, {
      method: 'PATCH',
      body: JSON.stringify({ name: 'y' }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 'abc', name: 'y', multipart: false });
    const post415 = await post(`/things/${id}`, JSON.stringify({ name: 'x' }), {
      'content-type': 'application/merge-patch+json',
    });
    expect(post415.status).toBe(415);
  });

  it('answers 400 validation_failed naming the field for U+0000 anywhere in the input', async () => {
    const deep = await fetch(`${url}/things/abc`, {
      method: 'PATCH',
      body: '{"tags":[{"label":"ok"},{"label":"a\\u0000b"}]}',
      headers: { 'content-type': 'application/json' },
    });
    expect(deep.status).toBe(400);
    expect(await errorOf(deep)).toMatchObject({
      code: 'validation_failed',
      details: [{ path: '/tags/1/label', message: 'must not contain the character U+0000 (NUL)' }],
    });
    const key = await fetch(`${url}/things/abc`, {
      method: 'PATCH',
      body: '{"na\\u0000me":"x"}',
      headers: { 'content-type': 'application/json' },
    });
    expect((await errorOf(key)).details[0]?.path).toBe('/na\\u0000me');
    const query = await post(`/things/${id}?n=%00`, JSON.stringify({ name: 'x' }));
    expect(query.status).toBe(400);
    expect((await errorOf(query)).details).toEqual([
      { path: '/n', message: 'must not contain the character U+0000 (NUL)' },
    ]);
    const param = await fetch(`${url}/things/a%00b`, {
      method: 'PATCH',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect((await errorOf(param)).details).toEqual([
      { path: '/id', message: 'must not contain the character U+0000 (NUL)' },
    ]);
  });

  it('reads one upload, tells the handler it was multipart, and removes the temporary file afterwards', async () => {
    const form = new FormData();
    form.append('caption', 'hello');
    form.append('file', new Blob([new Uint8Array(1000)]), 'a.bin');
    const res = await fetch(`${url}/uploads`, { method: 'POST', body: form });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ caption: 'hello', size: 1000 });
    expect(seenInputs.at(-1)).toEqual({ multipart: true, files: ['file'], leftOnDisk: 1 });
    expect(readdirSync(uploadDir)).toEqual([]);
  });

  it('answers 400 for a second file part, naming it, and leaves nothing on disk', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(20_000)]), 'one.bin');
    form.append('file', new Blob([new Uint8Array(20_000)]), 'two.bin');
    form.append('other', new Blob([new Uint8Array(10)]), 'three.bin');
    const res = await fetch(`${url}/uploads`, { method: 'POST', body: form });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('validation_failed');
    expect(error.details.map((d) => d.path)).toEqual(['/file', '/other']);
    expect(readdirSync(uploadDir)).toEqual([]);
  });

  it('answers 413 for a file over the cap and 400 for U+0000 in a form field, leaving nothing on disk', async () => {
    const big = new FormData();
    big.append('file', new Blob([new Uint8Array(70 * 1024)]), 'big.bin');
    const tooBig = await fetch(`${url}/uploads`, { method: 'POST', body: big });
    expect(tooBig.status).toBe(413);
    const nul = new FormData();
    nul.append('caption', 'a\u0000b');
    nul.append('file', new Blob([new Uint8Array(10)]), 'x.bin');
    const bad = await fetch(`${url}/uploads`, { method: 'POST', body: nul });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).details).toEqual([
      { path: '/caption', message: 'must not contain the character U+0000 (NUL)' },
    ]);
    await waitUntil('the upload directory is empty', () => readdirSync(uploadDir).length === 0, {
      timeoutMs: 5_000,
    }).catch(() => undefined);
    expect(readdirSync(uploadDir)).toEqual([]);
  });

  it('hides internal error messages and logs them once with the request id', async () => {
    const res = await fetch(`${url}/boom`, { headers: { 'x-request-id': 'req-123' } });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('req-123');
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal_error', message: 'Internal server error.' } });
    expect(text).not.toContain('passwd');
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.event === 'request_failed');
    expect(logged).toHaveLength(1);
    expect(logged[0].requestId).toBe('req-123');
  });

  it('writes one access log line per request without query strings, headers or bodies', async () => {
    lines.length = 0;
    await post(`/things/${id}?n=2`, JSON.stringify({ name: 'secret-body' }), {
      'content-type': 'application/json',
      authorization: 'Bearer service_sk_secret',
    });
    const access = lines.map((l) => JSON.parse(l)).filter((l) => l.event === 'request');
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      method: 'POST',
      path: `/things/${id}`,
      status: 201,
      requestId: expect.any(String),
      durationMs: expect.any(Number),
    });
    expect(lines.join('')).not.toMatch(/secret|n=2/);
  });

  it('replaces an unsafe client request id', async () => {
    const res = await fetch(`${url}/nothing`, { headers: { 'x-request-id': 'bad id <script>' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
