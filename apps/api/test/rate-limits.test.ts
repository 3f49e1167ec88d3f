import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from './support/http-client.ts';
import { createActor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_IP: '120', RATE_LIMIT_PER_KEY: '600' });
});
afterAll(async () => {
  await app?.stop();
});

describe('REST rate limits', () => {
  it(
    'answers the 121st request in a minute from one IP with 429 and Retry-After, ' + 'headers on every response',
    async () => {
      const actor = await createActor(app);
      const first = await actor.api.get('/clients');
      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-limit')).toBe('120');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('119');
      expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
      const statuses = [first.status];
      for (let i = 1; i < 121; i++) statuses.push((await actor.api.get('/clients')).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(120);
      expect(statuses[120]).toBe(429);
      const limited = await actor.api.get('/clients');
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      // The per-IP limit runs before the key lookup: guessing keys is throttled too.
      const guess = await httpClient(`${app.url}/rest/v1`, { token: `service_sk_${'B'.repeat(43)}` }).get('/clients');
      expect(guess.status).toBe(429);
    },
  );
});

describe('shared PostgreSQL counters', () => {
  it('gives two service processes one budget', async () => {
    const a = await startTestApp(
      { RATE_LIMIT_PER_IP: '1000000', RATE_LIMIT_PER_KEY: '10' },
      { rateLimitStore: 'postgres' },
    );
    try {
      // A second app on the same databases, as a second process would be.
      const actor = await createActor(a);
      const b = await startTestApp(
        { RATE_LIMIT_PER_IP: '1000000', RATE_LIMIT_PER_KEY: '10' },
        { rateLimitStore: 'postgres', reuse: a },
      );
      try {
        const viaA = httpClient(`${a.url}/rest/v1`, { token: actor.key });
        const viaB = httpClient(`${b.url}/rest/v1`, { token: actor.key });
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) {
          statuses.push((await viaA.get('/clients')).status);
          statuses.push((await viaB.get('/clients')).status);
        }
        expect(statuses.filter((s) => s === 200)).toHaveLength(10);
        expect(statuses.slice(10)).toEqual([429, 429]);
      } finally {
        await b.stop();
      }
    } finally {
      await a.stop();
    }
  });
});
