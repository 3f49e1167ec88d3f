import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetMs } from '@service/test-lanes';
import { httpClient } from './support/http-client.ts';
import { createActor, signIn } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';
import { HEALTH_REQUESTS_PER_MINUTE } from '../src/app.ts';

let app: TestApp;
/** The start of a minute: every request in these tests is counted then, inside one window. */
const AT = Date.UTC(2026, 0, 1);

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_IP: '120', RATE_LIMIT_PER_KEY: '600' }, { rateLimitAt: AT });
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
      // Never more than the one-minute window, however the sliding estimate decays.
      expect(Number(first.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60);
      const statuses = [first.status];
      for (let i = 1; i < 121; i++) statuses.push((await actor.api.get('/clients')).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(120);
      expect(statuses[120]).toBe(429);
      const limited = await actor.api.get('/clients');
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60);
      // The per-IP limit runs before the key lookup: guessing keys is throttled too.
      const guess = await httpClient(`${app.url}/rest/v1`, { token: `service_sk_${'B'.repeat(43)}` }).get('/clients');
      expect(guess.status).toBe(429);
    },
  );
});

describe('sessions on the REST API', () => {
  it('are counted per user (every session of a user shares the per-key budget), not per IP', async () => {
    const own = await startTestApp({ RATE_LIMIT_PER_IP: '5', RATE_LIMIT_PER_KEY: '8' }, { rateLimitAt: AT });
    try {
      const first = await createActor(own, { via: 'session' });
      const statuses: number[] = [];
      // Past the per-IP budget of 5: a session is not counted there.
      for (let i = 0; i < 6; i++) statuses.push((await first.api.get('/clients')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
      const res = await first.api.get('/clients');
      expect(res.headers.get('x-ratelimit-limit')).toBe('8');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('1');
      // A second session of the same user draws on the same budget.
      const second = await signIn(own, first.user.email, 'a-long-test-password');
      const rest = httpClient(`${own.url}/rest/v1`, {
        headers: { cookie: second.cookie, 'x-requested-with': 'XMLHttpRequest' },
      });
      expect((await rest.get('/clients')).status).toBe(200);
      const limited = await rest.get('/clients');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Another user's session has a budget of its own.
      expect((await (await createActor(own, { via: 'session' })).api.get('/clients')).status).toBe(200);
    } finally {
      await own.stop();
    }
  });
});

describe('rate-limit cost', () => {
  it("counts a DOCX export and a Markdown import as their routes' declared 10 requests, the rest as 1", async () => {
    const own = await startTestApp({ RATE_LIMIT_PER_IP: '1000000', RATE_LIMIT_PER_KEY: '1000' }, { rateLimitAt: AT });
    try {
      const actor = await createActor(own, { role: 'admin' });
      const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
      const clientId = (await actor.api.post('/clients', { name: 'Cost Ltd' })).body.id;
      await actor.allow(clientId);
      const projectId = (await actor.api.post('/projects', { clientId, name: 'Costs' })).body.id;
      const reportId = (await actor.api.post('/reports', { projectId, title: 'Costly' })).body.id;
      const before = remaining(await actor.api.get(`/reports/${reportId}`));
      const docx = await actor.api.get(`/reports/${reportId}/export-docx`);
      expect(docx.status).toBe(200);
      expect(remaining(docx)).toBe(before - 10);
      const markdown = await actor.api.get(`/reports/${reportId}/export-markdown`);
      expect(remaining(markdown)).toBe(before - 11);
      const imported = await actor.api.post('/reports/import-markdown', { markdown: markdown.text, projectId });
      expect(imported.status).toBe(201);
      expect(remaining(imported)).toBe(before - 21);
    } finally {
      await own.stop();
    }
  });
});

describe('shared PostgreSQL counters', () => {
  it('gives two service processes one budget', async () => {
    const a = await startTestApp(
      { RATE_LIMIT_PER_IP: '1000000', RATE_LIMIT_PER_KEY: '10' },
      { rateLimitStore: 'postgres', rateLimitAt: AT },
    );
    try {
      // A second app on the same databases, as a second process would be.
      const actor = await createActor(a);
      const b = await startTestApp(
        { RATE_LIMIT_PER_IP: '1000000', RATE_LIMIT_PER_KEY: '10' },
        { rateLimitStore: 'postgres', rateLimitAt: AT, reuse: a },
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

describe('health and version', () => {
  it(
    'have a budget of their own, far above the REST one, so a monitor polling fast never sees 429',
    async () => {
      // At one instant, so the 300 polls never straddle a window boundary of the real clock.
      const small = await startTestApp({ RATE_LIMIT_PER_IP: '5', RATE_LIMIT_PER_KEY: '600' }, { rateLimitAt: AT });
      try {
        const actor = await createActor(small);
        // 300 polls: 60 times the per-address REST budget, as a 20 Hz monitor makes in 15 s.
        const statuses: number[] = [];
        let last: Response | null = null;
        for (let i = 0; i < 300; i++) {
          last = await fetch(`${small.url}${i % 2 === 0 ? '/api/health' : '/api/version'}`);
          statuses.push(last.status);
        }
        expect(statuses.filter((s) => s !== 200)).toEqual([]);
        expect(last!.headers.get('x-ratelimit-limit')).toBe(String(HEALTH_REQUESTS_PER_MINUTE));
        expect(Number(last!.headers.get('x-ratelimit-remaining'))).toBe(HEALTH_REQUESTS_PER_MINUTE - 300);
        // Neither the REST budget nor the OpenAPI document's was used by them.
        const rest = await actor.api.get('/clients');
        expect(rest.status).toBe(200);
        expect(rest.headers.get('x-ratelimit-remaining')).toBe('4');
        const docs: number[] = [];
        for (let i = 0; i < 6; i++) docs.push((await fetch(`${small.url}/api/rest-docs/openapi`)).status);
        expect(docs[0]).toBe(200);
        expect(docs.at(-1)).toBe(429);
      } finally {
        await small.stop();
      }
      // 300 polls, and a few requests more.
    },
    budgetMs(310, 300),
  );
});
