// What the service deletes on a schedule: expired sessions, idempotency records past their
// 24-hour window, and rate-limit counters whose windows are over. Failures are logged, not lost.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionRepository, SESSION_IDLE_MS } from '@service/auth';
import { createJsonLogger, IDEMPOTENCY_WINDOW_MS, PostgresRateLimitStore, type RateLimitStore } from '@service/http';
import { startHousekeeping } from '../src/system/housekeeping.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

describe('housekeeping', () => {
  it(
    'prunes expired, idle and revoked sessions, old idempotency records and finished ' +
      'rate-limit windows, and keeps the rest',
    async () => {
      const cp = app.dbs.controlPlane;
      const user = await cp('users').first();
      const now = Date.now();
      const session = (fields: Record<string, unknown>) => ({
        user_id: user.id,
        token_hash: randomBytes(32),
        created_at: new Date(now - 60_000),
        last_seen_at: new Date(now),
        expires_at: new Date(now + 3_600_000),
        ...fields,
      });
      await cp('sessions').insert([
        session({ expires_at: new Date(now - 1_000) }),
        session({ last_seen_at: new Date(now - SESSION_IDLE_MS - 60_000) }),
        session({ revoked_at: new Date(now - 1_000) }),
      ]);
      const [live] = await cp('sessions').insert(session({})).returning('id');
      const keyId = (
        await cp('api_keys')
          .insert({
            organization_id: user.organization_id,
            user_id: user.id,
            name: 'hk',
            scope: 'read-only',
            prefix: 'service_sk_hk',
            key_hash: randomBytes(32),
            expires_at: new Date(now + 86_400_000),
          })
          .returning('id')
      )[0].id;
      const record = (key: string, createdAt: Date) => ({
        api_key_id: keyId,
        key,
        request_hash: 'x',
        status: 201,
        headers: '{}',
        body: '{}',
        created_at: createdAt,
      });
      await app.dbs
        .tenant('idempotency_records')
        .insert([
          record('old', new Date(now - IDEMPOTENCY_WINDOW_MS - 60_000)),
          record('recent', new Date(now - 60_000)),
        ]);
      const store: RateLimitStore = new PostgresRateLimitStore(cp);
      await store.consume('hk:old', 1, 10, 60_000, now - 10 * 60_000);
      await store.consume('hk:now', 1, 10, 60_000, now);

      const lines: string[] = [];
      const housekeeping = startHousekeeping({
        rateLimitStore: store,
        sessions: new SessionRepository(cp),
        tenants: app.tenants,
        logger: createJsonLogger('debug', (l) => lines.push(l)),
      });
      try {
        await housekeeping.runOnce();
      } finally {
        housekeeping.stop();
      }
      expect((await cp('sessions').select('id')).map((r) => r.id)).toEqual([live.id]);
      expect(
        (await app.dbs.tenant('idempotency_records').where({ api_key_id: keyId }).select('key')).map((r) => r.key),
      ).toEqual(['recent']);
      expect(
        (await cp('rate_limit_counters').whereIn('key', ['hk:old', 'hk:now']).select('key')).map((r) => r.key),
      ).toEqual(['hk:now']);
      const done = lines.map((l) => JSON.parse(l)).filter((l) => l.event === 'housekeeping');
      expect(done).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ task: 'sessions', removed: 3 }),
          expect.objectContaining({ task: 'idempotency_records', removed: 1 }),
        ]),
      );
    },
  );

  it(
    'logs a failing task as housekeeping_failed instead of dropping the error, and ' + 'keeps the others running',
    async () => {
      const lines: string[] = [];
      const failing: RateLimitStore = {
        consume: () => Promise.reject(new Error('nope')),
        refund: () => Promise.resolve(),
        prune: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
      };
      const housekeeping = startHousekeeping({
        rateLimitStore: failing,
        sessions: new SessionRepository(app.dbs.controlPlane),
        tenants: app.tenants,
        logger: createJsonLogger('debug', (l) => lines.push(l)),
      });
      try {
        await housekeeping.runOnce();
      } finally {
        housekeeping.stop();
      }
      const logged = lines.map((l) => JSON.parse(l));
      expect(logged.find((l) => l.event === 'housekeeping_failed')).toMatchObject({
        level: 'warn',
        task: 'rate_limit_counters',
        error: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' },
      });
      expect(
        logged
          .filter((l) => l.event === 'housekeeping')
          .map((l) => l.task)
          .sort(),
      ).toEqual(['idempotency_records', 'sessions']);
    },
  );
});
