import { createKnex, DATABASE_NAMES, prepareDatabases, type DatabaseName } from '@service/db';
import { createTestDatabases, type TestDatabases } from '@service/db/testing';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from './memory-rate-limit-store.ts';
import { PostgresRateLimitStore } from './postgres-rate-limit-store.ts';
import { describeRateLimitStoreContract } from './rate-limit-store-contract.ts';

let databases: TestDatabases;
let dbs: Record<DatabaseName, Knex>;
/** A second handle on the control-plane database: the "other process". */
let otherProcess: Knex;
let store: PostgresRateLimitStore;

beforeAll(async () => {
  databases = await createTestDatabases();
  dbs = Object.fromEntries(DATABASE_NAMES.map((n) => [n, createKnex(databases.urls[n], 10)])) as Record<
    DatabaseName,
    Knex
  >;
  otherProcess = createKnex(databases.urls.controlPlane, 10, 'service-second-process');
  await prepareDatabases(dbs, '0.1.0');
  store = new PostgresRateLimitStore(dbs.controlPlane);
});

afterAll(async () => {
  await Promise.all([...DATABASE_NAMES.map((n) => dbs?.[n]?.destroy()), otherProcess?.destroy()]);
  await databases?.drop();
});

describeRateLimitStoreContract('PostgresRateLimitStore', () => store);

describe('PostgresRateLimitStore across processes', () => {
  const T0 = 1_763_700_000_000;

  it('shares one budget between two processes', async () => {
    const second = new PostgresRateLimitStore(otherProcess);
    for (let i = 0; i < 60; i += 1) {
      expect((await store.consume('shared:a', 1, 120, 60_000, T0)).allowed).toBe(true);
      expect((await second.consume('shared:a', 1, 120, 60_000, T0)).allowed).toBe(true);
    }
    expect((await store.consume('shared:a', 1, 120, 60_000, T0)).allowed).toBe(false);
    expect(await second.consume('shared:a', 1, 120, 60_000, T0)).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfterMs: 60_500,
    });
  });

  it('allows exactly 120 of 200 concurrent requests from two processes', async () => {
    const second = new PostgresRateLimitStore(otherProcess);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        (i % 2 ? store : second).consume('shared:burst', 1, 120, 60_000, T0 + (i % 3)),
      ),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(120);
  });

  it('prune deletes only rows whose windows are both over', async () => {
    await store.consume('prune:old', 1, 120, 60_000, T0 - 60_001); // window [T0 - 2 min, T0 - 1 min): over at T0
    await store.consume('prune:busy', 120, 120, 60_000, T0 - 1); // window [T0 - 1 min, T0): still the previous window at T0
    await store.consume('prune:long', 1, 5, 15 * 60_000, T0 - 20 * 60_000); // a 15-minute window: counts until T0 + 10 min
    await store.prune(T0);
    const keys = (await dbs
      .controlPlane('rate_limit_counters')
      .whereIn('key', ['prune:old', 'prune:busy', 'prune:long'])
      .orderBy('key')
      .pluck('key')) as string[];
    expect(keys).toEqual(['prune:busy', 'prune:long']);
  });

  it('writes nothing a refusal would take: the row only rolls forward', async () => {
    await store.consume('refused:row', 120, 120, 60_000, T0);
    expect((await store.consume('refused:row', 1, 120, 60_000, T0 + 60_001)).allowed).toBe(false);
    const row = await dbs.controlPlane('rate_limit_counters').where({ key: 'refused:row' }).first();
    expect({ ...row, window_start: Number(row.window_start), window_ms: Number(row.window_ms) }).toMatchObject({
      window_start: T0 + 60_000,
      window_ms: 60_000,
      prev_count: 120,
      curr_count: 0,
      allowed: false,
    });
  });

  it('decides exactly like the memory store, request by request', async () => {
    // A deterministic mix of keys, costs, limits, windows, time steps and a clock that sometimes
    // lags the one that wrote the row (another process): every decision must be the same.
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const memory = new MemoryRateLimitStore();
    const second = new PostgresRateLimitStore(otherProcess);
    const configs = [
      { limit: 10, windowMs: 60_000 },
      { limit: 7, windowMs: 1_000 },
      { limit: 120, windowMs: 60_000 },
    ];
    let now = T0 + 123;
    for (let i = 0; i < 600; i += 1) {
      const which = Math.floor(random() * configs.length);
      const { limit, windowMs } = configs[which]!;
      const key = `same:${which}`;
      const cost = random() < 0.1 ? 0 : 1 + Math.floor(random() * Math.min(limit, random() < 0.8 ? 2 : limit));
      const step = random();
      now +=
        step < 0.5
          ? Math.floor(random() * 50)
          : step < 0.9
            ? Math.floor(random() * windowMs)
            : Math.floor(random() * 3 * windowMs);
      const at = random() < 0.05 ? now - Math.floor(random() * 20) : now;
      const viaPostgres = await (i % 2 ? store : second).consume(key, cost, limit, windowMs, at);
      expect(viaPostgres, `request ${i}`).toEqual(await memory.consume(key, cost, limit, windowMs, at));
    }
  });
});
