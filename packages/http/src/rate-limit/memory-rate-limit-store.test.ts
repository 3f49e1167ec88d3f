import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from './memory-rate-limit-store.ts';
import { describeRateLimitStoreContract } from './rate-limit-store-contract.ts';

const store = new MemoryRateLimitStore();
describeRateLimitStoreContract('MemoryRateLimitStore', () => store);

describe('MemoryRateLimitStore memory bound', () => {
  const T0 = 1_763_700_000_000;

  it('drops the least recently charged key beyond maxKeys', async () => {
    const small = new MemoryRateLimitStore({ maxKeys: 3 });
    for (const k of ['a', 'b', 'c']) await small.consume(k, 119, 120, 60_000, T0);
    await small.consume('a', 1, 120, 60_000, T0); // charging `a` again makes `b` the stalest
    await small.consume('d', 1, 120, 60_000, T0);
    expect(small.size).toBe(3);
    expect(await small.consume('b', 1, 120, 60_000, T0)).toMatchObject({ allowed: true, remaining: 119 }); // forgotten: full budget
    expect((await small.consume('a', 1, 120, 60_000, T0)).allowed).toBe(false);
  });

  it('sweeps keys whose windows are both over as time passes', async () => {
    const swept = new MemoryRateLimitStore({ sweepIntervalMs: 60_000 });
    for (let i = 0; i < 1000; i += 1) await swept.consume(`k${i}`, 1, 120, 60_000, T0);
    expect(swept.size).toBe(1000);
    // In the next window they still count (as the previous window), so they stay.
    await swept.consume('later', 1, 120, 60_000, T0 + 61_000);
    expect(swept.size).toBe(1001);
    await swept.consume('latest', 1, 120, 60_000, T0 + 121_000);
    expect(swept.size).toBe(2);
  });

  it('does not write a refusal', async () => {
    const small = new MemoryRateLimitStore({ maxKeys: 2 });
    await small.consume('a', 120, 120, 60_000, T0);
    await small.consume('b', 1, 120, 60_000, T0);
    expect((await small.consume('a', 1, 120, 60_000, T0)).allowed).toBe(false); // does not make `a` the freshest
    await small.consume('c', 1, 120, 60_000, T0);
    expect(await small.consume('a', 1, 120, 60_000, T0)).toMatchObject({ allowed: true, remaining: 119 });
  });
});
