// The behaviour every RateLimitStore must show; memory and PostgreSQL run the same cases.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RateLimitStore } from './rate-limit-store.ts';

const T0 = 1_763_700_000_000;
const MINUTE = 60_000;

export function describeRateLimitStoreContract(name: string, getStore: () => RateLimitStore): void {
  describe(`${name}: RateLimitStore behaviour`, () => {
    const freshKey = (label: string) => `${label}:${randomBytes(6).toString('hex')}`;
    const consumeMany = async (key: string, times: number, cost = 1, now = T0, limit = 120) => {
      const results = [];
      for (let i = 0; i < times; i += 1) results.push(await getStore().consume(key, cost, limit, MINUTE, now));
      return results;
    };

    it('allows exactly the limit at once and refuses the next', async () => {
      const key = freshKey('exact');
      const results = await consumeMany(key, 120);
      expect(results.every((r) => r.allowed)).toBe(true);
      expect(results.map((r) => r.remaining)).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i));
      expect(results[0]).toEqual({ allowed: true, remaining: 119, resetMs: 500, retryAfterMs: 0 });
      expect(results[119]).toEqual({ allowed: true, remaining: 0, resetMs: MINUTE, retryAfterMs: 0 });
      expect(await getStore().consume(key, 1, 120, MINUTE, T0)).toEqual({ allowed: false, remaining: 0, resetMs: MINUTE, retryAfterMs: 500 });
    });

    it('holds for the per-key limit and for limits that do not divide the window', async () => {
      const perKey = freshKey('per-key');
      expect((await consumeMany(perKey, 600, 1, T0, 600)).every((r) => r.allowed)).toBe(true);
      expect((await getStore().consume(perKey, 1, 600, MINUTE, T0)).allowed).toBe(false);
      const odd = freshKey('odd');
      expect((await consumeMany(odd, 7, 1, T0, 7)).every((r) => r.allowed)).toBe(true);
      expect((await getStore().consume(odd, 1, 7, MINUTE, T0)).allowed).toBe(false);
    });

    it('counts a cost of 10 as 10 requests', async () => {
      const key = freshKey('cost');
      const tens = await consumeMany(key, 12, 10);
      expect(tens.map((r) => r.remaining)).toEqual([110, 100, 90, 80, 70, 60, 50, 40, 30, 20, 10, 0]);
      expect(await getStore().consume(key, 10, 120, MINUTE, T0)).toMatchObject({ allowed: false, retryAfterMs: 5_000 });

      const mixed = freshKey('mixed');
      await consumeMany(mixed, 115);
      expect(await getStore().consume(mixed, 10, 120, MINUTE, T0)).toMatchObject({ allowed: false, remaining: 5, retryAfterMs: 2_500 });
      expect((await consumeMany(mixed, 5)).every((r) => r.allowed)).toBe(true);
      expect((await getStore().consume(mixed, 1, 120, MINUTE, T0)).allowed).toBe(false);
    });

    it('takes nothing for a refused request', async () => {
      const key = freshKey('refused');
      await consumeMany(key, 120);
      for (let i = 0; i < 50; i += 1) expect((await getStore().consume(key, i % 2 ? 10 : 1, 120, MINUTE, T0 + i)).allowed).toBe(false);
      // One emission interval later exactly one request of cost 1 fits again.
      expect(await getStore().consume(key, 1, 120, MINUTE, T0 + 500)).toEqual({ allowed: true, remaining: 0, resetMs: MINUTE, retryAfterMs: 0 });
      expect(await getStore().consume(key, 1, 120, MINUTE, T0 + 500)).toMatchObject({ allowed: false, retryAfterMs: 500 });
    });

    it('gives budget back as time passes, with Retry-After and reset to match', async () => {
      const key = freshKey('time');
      await consumeMany(key, 120);
      expect(await getStore().consume(key, 10, 120, MINUTE, T0 + 1_000)).toEqual({ allowed: false, remaining: 2, resetMs: 59_000, retryAfterMs: 4_000 });
      expect(await getStore().consume(key, 10, 120, MINUTE, T0 + 4_999)).toEqual({ allowed: false, remaining: 9, resetMs: 55_001, retryAfterMs: 1 });
      expect(await getStore().consume(key, 10, 120, MINUTE, T0 + 5_000)).toEqual({ allowed: true, remaining: 0, resetMs: MINUTE, retryAfterMs: 0 });
      // Half a window later half the budget is back.
      expect(await getStore().consume(key, 1, 120, MINUTE, T0 + 35_000)).toEqual({ allowed: true, remaining: 59, resetMs: 30_500, retryAfterMs: 0 });
      // A whole window after the last charge the budget is full.
      expect(await getStore().consume(key, 1, 120, MINUTE, T0 + 35_000 + MINUTE)).toEqual({ allowed: true, remaining: 119, resetMs: 500, retryAfterMs: 0 });
    });

    it('keeps keys independent', async () => {
      const a = freshKey('a');
      const b = freshKey('b');
      await consumeMany(a, 120);
      expect((await getStore().consume(a, 1, 120, MINUTE, T0)).allowed).toBe(false);
      expect(await getStore().consume(b, 1, 120, MINUTE, T0)).toMatchObject({ allowed: true, remaining: 119 });
      expect(await getStore().consume(`${a}x`, 1, 600, MINUTE, T0)).toMatchObject({ allowed: true, remaining: 599 });
    });

    it('prunes replenished keys without changing any answer', async () => {
      const key = freshKey('prune');
      await consumeMany(key, 10);
      expect(await getStore().prune(T0 + 4_999)).toBeGreaterThanOrEqual(0);
      expect(await getStore().consume(key, 1, 120, MINUTE, T0 + 4_999)).toMatchObject({ allowed: true, remaining: 119 - 10 + 9 });
      expect(await getStore().prune(T0 + 10 * MINUTE)).toBeGreaterThanOrEqual(1);
      expect(await getStore().consume(key, 1, 120, MINUTE, T0 + 10 * MINUTE)).toMatchObject({ allowed: true, remaining: 119 });
    });

    it('reads the budget without charging it for a cost of 0', async () => {
      const key = freshKey('peek');
      expect(await getStore().consume(key, 0, 120, MINUTE, T0)).toEqual({ allowed: true, remaining: 120, resetMs: 0, retryAfterMs: 0 });
      expect(await getStore().prune(T0 + 1)).toBe(0);
      await consumeMany(key, 120);
      expect(await getStore().consume(key, 0, 120, MINUTE, T0 + 1_000)).toEqual({ allowed: true, remaining: 2, resetMs: 59_000, retryAfterMs: 0 });
      expect(await getStore().consume(key, 0, 120, MINUTE, T0 + 1_000)).toMatchObject({ remaining: 2 });
    });

    it('rejects a cost it could never allow', async () => {
      await expect(getStore().consume(freshKey('bad'), 121, 120, MINUTE, T0)).rejects.toThrow(RangeError);
      await expect(getStore().consume(freshKey('bad'), -1, 120, MINUTE, T0)).rejects.toThrow(RangeError);
      await expect(getStore().consume(freshKey('bad'), 1.5, 120, MINUTE, T0)).rejects.toThrow(RangeError);
    });
  });
}
