import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { Type } from 'typebox';
/* eslint-disable @typescript-eslint/no-explicit-any */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonLogger, defineRoute, errorMiddleware, NotFoundError, OpenApiRegistry, requestLog } from './index.ts';

let server: Server;
let url: string;
const lines: string[] = [];

beforeAll(async () => {
  const koa = new Koa();
  koa.silent = true;
  const router = new Router();
  const registry = new OpenApiRegistry();
  const logger = createJsonLogger('info', (l) => lines.push(l));
  koa.use(requestLog(logger));
  koa.use(errorMiddleware(logger));
  defineRoute(router, registry, { bodyLimitBytes: 1024 }, {
    method: 'post',
    path: '/things/{id}',
    operationId: 'createThing',
    summary: 'test',
    tags: ['Test'],
    params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
    query: Type.Object({ n: Type.Optional(Type.Integer({ minimum: 1 })) }),
    body: { schema: Type.Object({ name: Type.String({ minLength: 1 }), severity: Type.Optional(Type.Enum(['low', 'high'])) }, { additionalProperties: false }) },
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
  server.close();
});

const id = '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f';
const post = (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${url}${path}`, { method: 'POST', body, headers });

describe('defineRoute and the error mapper', () => {
  it('validates and converts path, query and body, then calls the handler', async () => {
    const res = await post(`/things/${id}?n=3&unknown=1`, JSON.stringify({ name: 'x' }));
    expect(res.status).toBe(201);
    expect((await res.json()) as any).toEqual({ id, n: 3, name: 'x' });
  });

  it('answers 400 validation_failed naming every bad field', async () => {
    const res = await post(`/things/not-a-uuid?n=0`, JSON.stringify({ name: '', severity: 'urgent', extra: 1 }));
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as any;
    expect(error.code).toBe('validation_failed');
    expect(error.message).toMatch(/path parameters field \/id/);
  });

  it('lists body problems with their paths', async () => {
    const res = await post(`/things/${id}`, JSON.stringify({ name: '', severity: 'urgent', extra: 1 }));
    const { error } = (await res.json()) as any;
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
    expect(((await res.json()) as any).error.code).toBe('malformed_json');
  });

  it('answers 413 for a body over the cap', async () => {
    const res = await post(`/things/${id}`, JSON.stringify({ name: 'x'.repeat(5000) }));
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('payload_too_large');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await post(`/things/${id}`, 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(((await res.json()) as any).error.code).toBe('unsupported_media_type');
  });

  it('answers 400 when the JSON body is missing', async () => {
    const res = await fetch(`${url}/things/${id}`, { method: 'POST' });
    expect(res.status).toBe(400);
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
    await post(`/things/${id}?n=2`, JSON.stringify({ name: 'secret-body' }), { 'content-type': 'application/json', authorization: 'Bearer service_sk_secret' });
    const access = lines.map((l) => JSON.parse(l)).filter((l) => l.event === 'request');
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({ method: 'POST', path: `/things/${id}`, status: 201, requestId: expect.any(String), durationMs: expect.any(Number) });
    expect(lines.join('')).not.toMatch(/secret|n=2/);
  });

  it('replaces an unsafe client request id', async () => {
    const res = await fetch(`${url}/nothing`, { headers: { 'x-request-id': 'bad id <script>' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
