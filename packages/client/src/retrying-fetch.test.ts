import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NoAnswerError, retryingFetch, type RetryEvent } from './index.ts';

interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  body: string;
}

/** What the test server answers next, in order; a `drop` closes the connection without an answer. */
let script: Array<{ status: number; headers?: Record<string, string>; body?: unknown } | 'drop'> = [];
let seen: Seen[] = [];
let server: Server;
let url: string;

function answer(req: IncomingMessage, res: ServerResponse, body: string) {
  seen.push({
    method: req.method!,
    path: req.url!,
    authorization: req.headers.authorization,
    idempotencyKey: req.headers['idempotency-key'] as string | undefined,
    body,
  });
  const next = script.shift() ?? { status: 200, body: { ok: true } };
  if (next === 'drop') {
    req.socket.destroy();
    return;
  }
  res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
  res.end(JSON.stringify(next.body ?? {}));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server?.close();
});
beforeEach(() => {
  script = [];
  seen = [];
});

/** The fetch under test; it records its waits instead of sleeping. */
function client(options: { attempts?: number; maxWaitSeconds?: number } = {}) {
  const waits: number[] = [];
  const events: RetryEvent[] = [];
  const send = retryingFetch({
    origin: url,
    apiKey: 'service_sk_test',
    retry: {
      ...options,
      sleep: async (ms) => void waits.push(ms),
      onRetry: (e) => void events.push(e),
    },
  });
  return { send, waits, events };
}

const rateLimited = (seconds: string) => ({
  status: 429,
  headers: { 'retry-after': seconds },
  body: { error: { code: 'rate_limited', message: 'Too many requests.' } },
});

describe('retryingFetch', () => {
  it('sends the key, gives a create an Idempotency-Key and keeps it for every retry after a 429', async () => {
    script = [rateLimited('2'), rateLimited('1')];
    const { send, waits, events } = client();
    const res = await send(new Request(`${url}/rest/v1/clients`, { method: 'POST', body: '{"name":"A"}' }));
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.idempotencyKey)).size).toBe(1);
    expect(seen[0]!.idempotencyKey).toMatch(/^[\x21-\x7e]{1,255}$/);
    expect(seen.every((s) => s.authorization === 'Bearer service_sk_test' && s.body === '{"name":"A"}')).toBe(true);
    expect(waits).toEqual([2000, 1000]);
    expect(events[0]).toMatchObject({ request: 'POST /rest/v1/clients', attempt: 1, reason: '429 rate_limited' });
  });

  it("keeps the caller's own Idempotency-Key, and gives none to reads", async () => {
    const { send } = client();
    await send(new Request(`${url}/rest/v1/clients`, { method: 'POST', headers: { 'Idempotency-Key': 'mine-1' } }));
    await send(new Request(`${url}/rest/v1/clients`));
    expect(seen.map((s) => s.idempotencyKey)).toEqual(['mine-1', undefined]);
  });

  it('waits on 503 by Retry-After, or backs off without one, and on 409 idempotency_in_progress', async () => {
    script = [
      { status: 503, body: { error: { code: 'unavailable', message: 'Try again.' } } },
      { status: 503, headers: { 'retry-after': '5' }, body: { error: { code: 'unavailable', message: 'x' } } },
      { status: 409, body: { error: { code: 'idempotency_in_progress', message: 'Still running.' } } },
    ];
    const { send, waits, events } = client();
    const res = await send(new Request(`${url}/rest/v1/reports`, { method: 'POST', body: '{}' }));
    expect(res.status).toBe(200);
    expect(waits).toEqual([500, 5000, 2000]);
    expect(events.map((e) => e.reason)).toEqual(['503 unavailable', '503 unavailable', '409 idempotency_in_progress']);
  });

  it('is bounded: a Retry-After beyond the longest wait, or the last attempt, returns the error answer', async () => {
    script = [rateLimited('120')];
    const patient = client({ maxWaitSeconds: 60 });
    expect((await patient.send(new Request(`${url}/rest/v1/clients`))).status).toBe(429);
    expect(patient.waits).toEqual([]);
    script = Array.from({ length: 10 }, () => rateLimited('1'));
    const bounded = client({ attempts: 3 });
    expect((await bounded.send(new Request(`${url}/rest/v1/clients`))).status).toBe(429);
    expect(seen).toHaveLength(4);
    expect(bounded.waits).toEqual([1000, 1000]);
  });

  it('does not retry other errors: a 409 conflict or a 422 is the answer', async () => {
    script = [{ status: 409, body: { error: { code: 'conflict', message: 'Changed.' } } }];
    const { send, waits } = client();
    expect((await send(new Request(`${url}/rest/v1/clients`, { method: 'POST', body: '{}' }))).status).toBe(409);
    expect(waits).toEqual([]);
  });

  it('sends again after a lost connection only what the document says is safe', async () => {
    script = ['drop'];
    const reads = client();
    expect((await reads.send(new Request(`${url}/rest/v1/clients`))).status).toBe(200);
    expect(reads.waits).toEqual([500]);
    script = ['drop'];
    const creates = client();
    expect((await creates.send(new Request(`${url}/rest/v1/clients`, { method: 'POST', body: '{}' }))).status).toBe(
      200,
    );
    expect(seen.slice(-2).map((s) => s.idempotencyKey)).toEqual([
      seen.at(-1)!.idempotencyKey,
      seen.at(-1)!.idempotencyKey,
    ]);
    const id = '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b';
    // Deletes into the trash are safe to repeat; restores carry a key.
    for (const [method, path] of [
      ['DELETE', `/rest/v1/reports/${id}`],
      ['POST', `/rest/v1/reports/${id}/restore`],
    ] as const) {
      script = ['drop'];
      const safe = client();
      expect((await safe.send(new Request(`${url}${path}`, { method }))).status, path).toBe(200);
      expect(safe.waits, path).toEqual([500]);
    }
    expect(seen.at(-1)!.idempotencyKey).toBe(seen.at(-2)!.idempotencyKey);
    expect(seen.at(-1)!.idempotencyKey).toMatch(/^[\x21-\x7e]+$/);
    // A PATCH and a permanent delete are not: the caller is told, and nothing is assumed.
    for (const [method, path] of [
      ['PATCH', `/rest/v1/clients/${id}`],
      ['DELETE', `/rest/v1/findings/${id}`],
    ] as const) {
      script = ['drop'];
      const before = seen.length;
      const unsafe = client();
      const error = await unsafe.send(new Request(`${url}${path}`, { method })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NoAnswerError);
      expect(error).toMatchObject({ request: `${method} ${path}`, attempts: 1, resendable: false });
      expect((error as Error).message).toMatch(/not sent again .* may have been carried out/);
      expect(seen.length - before).toBe(1);
      expect(unsafe.waits).toEqual([]);
    }
  });

  it('gives up after the last attempt with the request named', async () => {
    script = ['drop', 'drop', 'drop'];
    const error = await client({ attempts: 3 })
      .send(new Request(`${url}/rest/v1/clients`))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'NoAnswerError',
      request: 'GET /rest/v1/clients',
      attempts: 3,
      resendable: true,
    });
  });

  it('sends the API key to the service only', async () => {
    const { send } = client();
    const elsewhere = url.replace('127.0.0.1', 'localhost');
    await send(new Request(`${elsewhere}/rest/v1/clients`));
    expect(seen[0]!.authorization).toBeUndefined();
  });
});
