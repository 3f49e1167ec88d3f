import { createKnex, DATABASE_NAMES, prepareDatabases, type DatabaseName } from '@service/db';
import { createTestDatabases, type TestDatabases } from '@service/db/testing';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresRateLimitStore } from './postgres-rate-limit-store.ts';
import { describeRateLimitStoreContract } from './rate-limit-store-contract.ts';

let databases: TestDatabases;
let dbs: Record<DatabaseName, Knex>;
/** A second handle on the control-plane database: the "other process". */
let otherProcess: Knex;
let store: PostgresRateLimitStore;

beforeAll(async () => {
  databases = await createTestDatabases();
  dbs = Object.fromEntries(DATABASE_NAMES.map((n) => [n, createKnex(databases.urls[n], 10)])) as Record<DatabaseName, Knex>;
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
    expect(await second.consume('shared:a', 1, 120, 60_000, T0)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 500 });
  });

  it('allows exactly 120 of 200 concurrent requests from two processes', async () => {
    const second = new PostgresRateLimitStore(otherProcess);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? store : second).consume('shared:burst', 1, 120, 60_000, T0 + (i % 3))),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(120);
  });

  it('prune deletes only rows whose budget is fully back', async () => {
    await store.consume('prune:old', 1, 120, 60_000, T0);
    await store.consume('prune:busy', 120, 120, 60_000, T0);
    await store.prune(T0 + 1_000);
    const keys = (await dbs.controlPlane('rate_limit_counters').whereIn('key', ['prune:old', 'prune:busy']).pluck('key')) as string[];
    expect(keys).toEqual(['prune:busy']);
  });
});
