import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { createKnex } from '@service/db';
import Koa from 'koa';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createJsonLogger, errorMiddleware, NotFoundError, requestLog, UnauthenticatedError } from '../index.ts';
import { clientIp } from './client-ip.ts';
import { MemoryRateLimitStore } from './memory-rate-limit-store.ts';
import { PostgresRateLimitStore } from './postgres-rate-limit-store.ts';
import { chargeDeferredCost, rateLimit } from './rate-limit-middleware.ts';
import type { RateLimitDecision, RateLimitStore } from './rate-limit-store.ts';

/**
 * The pipeline order of DESIGN.md: request log, error mapper, per-IP limit, key authentication, per-key limit, handler.
 */
async function startApp(
  store: RateLimitStore,
  options: { clock: { now: number }; warnings?: unknown[]; storeTimeoutMs?: number },
) {
  const koa = new Koa();
  koa.silent = true;
  const logger = createJsonLogger('silent');
  const warnLogger = {
    warn: (event: string, fields?: Record<string, unknown>) => options.warnings?.push({ event, ...fields }),
  };
  const now = () => options.clock.now;
  const cost = (ctx: Koa.Context) => (ctx.path === '/export' ? 2 : ctx.path === '/too-costly' ? 99 : 1);
  const deferredCost = (ctx: Koa.Context) => (ctx.path === '/deferred' ? 2 : 0);
  koa.use(requestLog(logger));
  koa.use(errorMiddleware(logger));
  koa.use(
    rateLimit({
      store,
      prefix: 'ip',
      limit: 5,
      key: (ctx) => clientIp(ctx, ['127.0.0.1', '::1']),
      cost,
      deferredCost,
      now,
      logger: warnLogger,
      storeTimeoutMs: options.storeTimeoutMs,
    }),
  );
  koa.use(async (ctx, next) => {
    if (ctx.get('x-key') === 'wrong') throw new UnauthenticatedError();
    ctx.state.keyId = ctx.get('x-key') || null;
    await next();
  });
  koa.use(
    rateLimit({
      store,
      prefix: 'key',
      limit: 3,
      key: (ctx) => ctx.state.keyId as string | null,
      cost,
      deferredCost,
      now,
      logger: warnLogger,
      storeTimeoutMs: options.storeTimeoutMs,
    }),
  );
  koa.use(async (ctx) => {
    if (ctx.path === '/deferred' && ctx.get('x-work') === 'yes') await chargeDeferredCost(ctx);
    if (ctx.path === '/boom') throw new Error('secret');
    if (ctx.path === '/gone') throw new NotFoundError();
    if (ctx.path === '/teapot') ctx.throw(418, 'short and stout');
    ctx.body = { ok: true };
  });
  const server: Server = createServer(koa.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A whole minute: the start of a fixed window. */
const T0 = 1_763_700_000_000;
const clock = { now: T0 };
let server: Server;
let url: string;
let nextIp = 1;
/** A client address of its own, forwarded by the trusted local proxy. */
const freshIp = () => `198.51.100.${nextIp++}`;
const get = (path: string, ip: string, key?: string) =>
  fetch(`${url}${path}`, { headers: { 'x-forwarded-for': ip, ...(key ? { 'x-key': key } : {}) } });
const limitHeaders = (res: Response) => ({
  limit: res.headers.get('x-ratelimit-limit'),
  remaining: res.headers.get('x-ratelimit-remaining'),
  reset: res.headers.get('x-ratelimit-reset'),
});

beforeAll(async () => {
  ({ server, url } = await startApp(new MemoryRateLimitStore(), { clock }));
});
afterAll(() => {
  server.close();
});
beforeEach(() => {
  clock.now = T0;
});

describe('rateLimit middleware', () => {
  it('sets the headers on a successful response', async () => {
    const res = await get('/ok', freshIp());
    expect(res.status).toBe(200);
    // The estimate decays over this window and the next (120 s), but Reset never says more than the window.
    expect(limitHeaders(res)).toEqual({ limit: '5', remaining: '4', reset: '60' });
    expect(res.headers.get('retry-after')).toBeNull();
  });

  it('answers 429 rate_limited with Retry-After and the headers, and lets the client in when it is due', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i += 1) expect((await get('/ok', ip)).status).toBe(200);
    const res = await get('/ok', ip);
    expect(res.status).toBe(429);
    // Not before the next window, once 5 x (1 - e / 60 s) + 1 <= 5: e = 12 s, 72 s from now.
    expect(await res.json()).toEqual({ error: { code: 'rate_limited', message: 'Too many requests; retry in 72 s.' } });
    expect(res.headers.get('retry-after')).toBe('72');
    expect(limitHeaders(res)).toEqual({ limit: '5', remaining: '0', reset: '60' });
    clock.now += 59_999;
    expect((await get('/ok', ip)).headers.get('retry-after')).toBe('13');
    clock.now += 11_001;
    const early = await get('/ok', ip);
    expect(early.status).toBe(429);
    expect(early.headers.get('retry-after')).toBe('1');
    clock.now += 1_000;
    expect((await get('/ok', ip)).status).toBe(200);
    expect((await get('/ok', ip)).status).toBe(429);
  });

  it('bases Retry-After on the cost of the refused request', async () => {
    const ip = freshIp();
    for (let i = 0; i < 3; i += 1) await get('/ok', ip);
    expect(limitHeaders(await get('/export', ip))).toMatchObject({ remaining: '0', reset: '60' });
    expect((await get('/ok', ip)).headers.get('retry-after')).toBe('72');
    expect((await get('/export', ip)).headers.get('retry-after')).toBe('84');
  });

  it('keeps the headers when a later step fails', async () => {
    const ip = freshIp();
    for (const [path, status] of [
      ['/boom', 500],
      ['/gone', 404],
      ['/teapot', 418],
    ] as const) {
      const res = await get(path, ip);
      expect(res.status).toBe(status);
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
    }
    const unauthenticated = await get('/ok', ip, 'wrong');
    expect(unauthenticated.status).toBe(401);
    expect(limitHeaders(unauthenticated)).toEqual({ limit: '5', remaining: '1', reset: '60' });
  });

  it('throttles key guessing with the per-IP budget, before authentication', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i += 1) expect((await get('/ok', ip, 'wrong')).status).toBe(401);
    expect((await get('/ok', ip, 'wrong')).status).toBe(429);
  });

  it('shows the tighter of the two budgets', async () => {
    // The key budget (3) is tighter than a fresh IP budget (5).
    const key = `k-${freshIp()}`;
    expect(limitHeaders(await get('/ok', freshIp(), key))).toEqual({ limit: '3', remaining: '2', reset: '60' });
    // An IP that has used most of its budget is tighter than a fresh key.
    const busyIp = freshIp();
    for (let i = 0; i < 4; i += 1) await get('/ok', busyIp);
    expect(limitHeaders(await get('/ok', busyIp, `k-${freshIp()}`))).toEqual({
      limit: '5',
      remaining: '0',
      reset: '60',
    });
    // A refusal by the key limiter shows the key budget even though the IP has room.
    await get('/ok', freshIp(), key);
    await get('/ok', freshIp(), key);
    const refused = await get('/ok', freshIp(), key);
    expect(refused.status).toBe(429);
    expect(limitHeaders(refused)).toEqual({ limit: '3', remaining: '0', reset: '60' });
    expect(refused.headers.get('retry-after')).toBe('80');
  });

  it('charges a deferred cost only when the route asks, and gives it back when a later limiter refuses', async () => {
    const ip = freshIp();
    const key = `k-${ip}`;
    const work = (k: string) =>
      fetch(`${url}/deferred`, { headers: { 'x-forwarded-for': ip, 'x-key': k, 'x-work': 'yes' } });
    // Without work only the up-front 1 is charged.
    const idle = await fetch(`${url}/deferred`, { headers: { 'x-forwarded-for': ip, 'x-key': key } });
    expect(limitHeaders(idle)).toMatchObject({ limit: '3', remaining: '2' });
    // 1, then 2 more on both budgets: they do not fit the key's (1 + 1 + 2 > 3); the IP's 2 are given back.
    const refused = await work(key);
    expect(refused.status).toBe(429);
    expect(limitHeaders(refused)).toMatchObject({ limit: '3', remaining: '1' });
    // The IP has used 1 + 1, not 1 + 1 + 2: another key from it sees 3 left of 5, less this request.
    expect(limitHeaders(await get('/ok', ip, `other-${ip}`))).toMatchObject({ limit: '5', remaining: '2' });
    expect((await work(`third-${ip}`)).status).toBe(429);
  });

  it('fails with a 500 for a cost above the limit: a configuration mistake, not the client', async () => {
    expect((await get('/too-costly', freshIp())).status).toBe(500);
  });
});

describe('rateLimit when the store fails', () => {
  const failing: RateLimitStore = {
    consume: () =>
      Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })),
    refund: () => Promise.resolve(),
    prune: () => Promise.resolve(0),
  };
  const hanging: RateLimitStore = {
    consume: () => new Promise<RateLimitDecision>(() => {}),
    refund: () => Promise.resolve(),
    prune: () => Promise.resolve(0),
  };

  it('lets requests through without headers and warns at most every 10 s', async () => {
    const warnings: Array<Record<string, unknown>> = [];
    const local = { now: T0 };
    const app = await startApp(failing, { clock: local, warnings });
    try {
      for (let i = 0; i < 3; i += 1) {
        const res = await fetch(`${app.url}/ok`, { headers: { 'x-key': 'k' } });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      }
      // Two limiters, three requests: one warning each, the rest counted.
      expect(warnings).toEqual([
        expect.objectContaining({
          event: 'rate_limit_store_failed',
          limiter: 'ip',
          failOpen: true,
          suppressedSinceLastWarning: 0,
          error: expect.objectContaining({ code: 'ECONNREFUSED' }),
        }),
        expect.objectContaining({ event: 'rate_limit_store_failed', limiter: 'key' }),
      ]);
      local.now += 10_000;
      await fetch(`${app.url}/ok`);
      expect(warnings[2]).toMatchObject({ limiter: 'ip', suppressedSinceLastWarning: 2 });
    } finally {
      app.server.close();
    }
  });

  it('treats a store slower than storeTimeoutMs as failed', async () => {
    const warnings: Array<Record<string, unknown>> = [];
    const app = await startApp(hanging, { clock: { now: T0 }, warnings, storeTimeoutMs: 50 });
    try {
      expect((await fetch(`${app.url}/ok`)).status).toBe(200);
      expect(warnings[0]).toMatchObject({ error: { name: 'StoreTimeoutError' } });
    } finally {
      app.server.close();
    }
  });

  it('fails open when the PostgreSQL server is unreachable', async () => {
    const knex = createKnex('postgres://nobody@127.0.0.1:1/none', 1);
    const warnings: Array<Record<string, unknown>> = [];
    const app = await startApp(new PostgresRateLimitStore(knex), { clock: { now: T0 }, warnings });
    try {
      expect((await fetch(`${app.url}/ok`)).status).toBe(200);
      expect(warnings[0]).toMatchObject({ event: 'rate_limit_store_failed', limiter: 'ip' });
    } finally {
      app.server.close();
      await knex.destroy();
    }
  });
});
