// The behaviour every RateLimitStore must show; memory and PostgreSQL run the same cases.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RateLimitDecision, RateLimitStore } from './rate-limit-store.ts';

/** A whole minute, so T0 starts a fixed window. */
const T0 = 1_763_700_000_000;
const MINUTE = 60_000;

export function describeRateLimitStoreContract(name: string, getStore: () => RateLimitStore): void {
  describe(`${name}: RateLimitStore behaviour`, () => {
    const freshKey = (label: string) => `${label}:${randomBytes(6).toString('hex')}`;
    const consume = (key: string, cost: number, now: number, limit = 120) =>
      getStore().consume(key, cost, limit, MINUTE, now);
    const consumeMany = async (key: string, times: number, cost = 1, now = T0, limit = 120) => {
      const results: RateLimitDecision[] = [];
      for (let i = 0; i < times; i += 1) results.push(await consume(key, cost, now, limit));
      return results;
    };
    /** Requests of cost 1 at the given instants; how many were allowed. */
    const allowedAt = async (key: string, instants: number[], limit = 120) => {
      const results: RateLimitDecision[] = [];
      for (const at of instants) results.push(await consume(key, 1, at, limit));
      return results;
    };
    const range = (n: number, from: number, stepMs: number) => Array.from({ length: n }, (_, i) => from + i * stepMs);

    it('allows exactly the limit at once and refuses the next until the previous window has decayed', async () => {
      const key = freshKey('exact');
      const results = await consumeMany(key, 120);
      expect(results.every((r) => r.allowed)).toBe(true);
      expect(results.map((r) => r.remaining)).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i));
      // Counted in the window [T0, T0 + 1 min); it is all gone when the next window is over too.
      expect(results[0]).toEqual({ allowed: true, remaining: 119, resetMs: 2 * MINUTE, retryAfterMs: 0 });
      expect(results[119]).toEqual({ allowed: true, remaining: 0, resetMs: 2 * MINUTE, retryAfterMs: 0 });
      // Next window: 120 x (1 - e / 60 000) + 1 <= 120 once e >= 500 ms.
      expect(await consume(key, 1, T0)).toEqual({
        allowed: false,
        remaining: 0,
        resetMs: 2 * MINUTE,
        retryAfterMs: MINUTE + 500,
      });
      expect(await consume(key, 1, T0 + MINUTE - 1)).toMatchObject({ allowed: false, retryAfterMs: 501 });
      expect(await consume(key, 1, T0 + MINUTE + 499)).toMatchObject({ allowed: false, retryAfterMs: 1 });
      expect(await consume(key, 1, T0 + MINUTE + 500)).toEqual({
        allowed: true,
        remaining: 0,
        resetMs: 2 * MINUTE - 500,
        retryAfterMs: 0,
      });
    });

    it('refuses the 121st of a burst within one second', async () => {
      const key = freshKey('burst');
      const results = await allowedAt(key, range(121, T0 + 20_000, 8)); // 121 requests over 960 ms
      expect(results.slice(0, 120).every((r) => r.allowed)).toBe(true);
      expect(results[120]).toMatchObject({ allowed: false, remaining: 0 });
      // Still refused for the rest of the minute, whatever the client does meanwhile.
      const retries = await allowedAt(key, range(40, T0 + 21_000, 1_000));
      expect(retries.some((r) => r.allowed)).toBe(false);
    });

    it('refuses the 121st of a quick burst however it straddles a window boundary', async () => {
      const boundary = T0 + MINUTE;
      // 60 in the last 600 ms before the boundary, 61 in the 488 ms after it.
      const key = freshKey('straddle');
      const before = await allowedAt(key, range(60, boundary - 600, 10));
      const after = await allowedAt(key, range(61, boundary, 8));
      expect(before.every((r) => r.allowed)).toBe(true);
      expect(after.slice(0, 60).every((r) => r.allowed)).toBe(true);
      expect(after[60]!.allowed).toBe(false);
      // Every split of a 121-request burst lasting 968 ms (evenly spaced) across the boundary.
      for (const split of [1, 20, 45, 59, 61, 80, 100, 119, 120]) {
        const results = await allowedAt(freshKey(`split-${split}`), range(121, boundary - split * 8, 8));
        expect(
          results.filter((r) => r.allowed),
          `split ${split}`,
        ).toHaveLength(120);
        expect(results[120]!.allowed, `split ${split}`).toBe(false);
      }
    });

    // About 5 000 sequential store calls: against PostgreSQL on a busy 2-core machine that can take
    // well over the default 30 s, and the test checks results, not speed.
    it('holds a client firing steadily for 3 minutes to the limit per window', async () => {
      const cases = [
        ['aligned', 100, 0],
        ['fast', 100, 12_345],
        ['slow', 450, 59_000],
        ['jittery', 37, 30_001],
      ] as const;
      for (const [label, everyMs, phase] of cases) {
        const key = freshKey(label);
        const start = T0 + phase;
        const allowed: number[] = [];
        for (let at = start; at < start + 3 * MINUTE; at += everyMs)
          if ((await consume(key, 1, at)).allowed) allowed.push(at);
        /** Most allowed in any rolling 60 s (t - 60 000, t] holding only requests from `from` on. */
        const busiestFrom = (from: number) =>
          Math.max(
            ...allowed
              .filter((t) => t - MINUTE >= from - 1)
              .map((t) => allowed.filter((u) => u > t - MINUTE && u <= t).length),
          );
        // Exact: no fixed window ever counts more than the limit.
        for (let w = T0; w < start + 4 * MINUTE; w += MINUTE)
          expect(allowed.filter((u) => u >= w && u < w + MINUTE).length, label).toBeLessThanOrEqual(120);
        // Once the client has been at it from a window boundary on, any rolling minute holds the limit
        // (give or take one request: the estimate assumes the previous window was used evenly).
        const firstBoundary = T0 + Math.ceil(phase / MINUTE) * MINUTE;
        expect(busiestFrom(firstBoundary), label).toBeLessThanOrEqual(121);
        // Its first minute is where the approximation is weakest: starting `phase` into a window it
        // gets its burst of 120 there, and the next window lets the previous one decay as if spread
        // evenly, so up to 120 + 120 x phase / 60 s more within 60 s of the start.
        expect(busiestFrom(start), label).toBeLessThanOrEqual(120 + Math.ceil((120 * phase) / MINUTE));
        if (phase === 0) expect(busiestFrom(start), label).toBe(120);
        // And it does get its budget: about 120 per window.
        expect(allowed.length, label).toBeGreaterThanOrEqual(3 * 120 - 3);
      }
    }, 180_000);

    it('holds for the per-key limit and for limits that do not divide the window', async () => {
      const perKey = freshKey('per-key');
      expect((await consumeMany(perKey, 600, 1, T0, 600)).every((r) => r.allowed)).toBe(true);
      expect((await consume(perKey, 1, T0, 600)).allowed).toBe(false);
      const odd = freshKey('odd');
      expect((await consumeMany(odd, 7, 1, T0 + 59_999, 7)).every((r) => r.allowed)).toBe(true);
      expect(await consume(odd, 1, T0 + 59_999, 7)).toMatchObject({ allowed: false, retryAfterMs: 8_572 + 1 });
      expect((await consume(odd, 1, T0 + MINUTE + 8_571, 7)).allowed).toBe(false);
      expect((await consume(odd, 1, T0 + MINUTE + 8_572, 7)).allowed).toBe(true);
    });

    it('counts a cost of 10 as 10 requests', async () => {
      const key = freshKey('cost');
      const tens = await consumeMany(key, 12, 10);
      expect(tens.map((r) => r.remaining)).toEqual([110, 100, 90, 80, 70, 60, 50, 40, 30, 20, 10, 0]);
      // 120 x (1 - e / 60 000) + 10 <= 120 once e >= 5 000 ms into the next window.
      expect(await consume(key, 10, T0)).toMatchObject({ allowed: false, retryAfterMs: MINUTE + 5_000 });
      expect((await consume(key, 10, T0 + MINUTE + 4_999)).allowed).toBe(false);
      expect(await consume(key, 10, T0 + MINUTE + 5_000)).toEqual({
        allowed: true,
        remaining: 0,
        resetMs: 2 * MINUTE - 5_000,
        retryAfterMs: 0,
      });

      const mixed = freshKey('mixed');
      await consumeMany(mixed, 115);
      // 115 + 10 > 120: next window, once 115 x (1 - e / 60 000) <= 110, e >= 2 609 ms (rounded up).
      expect(await consume(mixed, 10, T0)).toMatchObject({
        allowed: false,
        remaining: 5,
        retryAfterMs: MINUTE + 2_609,
      });
      expect((await consumeMany(mixed, 5)).every((r) => r.allowed)).toBe(true);
      expect((await consume(mixed, 1, T0)).allowed).toBe(false);
    });

    it('takes nothing for a refused request', async () => {
      const key = freshKey('refused');
      const control = freshKey('control');
      await consumeMany(key, 120);
      await consumeMany(control, 120);
      for (let i = 0; i < 50; i += 1) expect((await consume(key, i % 2 ? 10 : 1, T0 + 1_000 * i)).allowed).toBe(false);
      for (let i = 0; i < 50; i += 1) expect((await consume(key, 1, T0 + MINUTE + 10 * i)).allowed).toBe(false);
      // 500 ms into the next window exactly one request of cost 1 fits, as if nothing had been refused.
      for (const k of [key, control]) {
        expect(await consume(k, 1, T0 + MINUTE + 500)).toEqual({
          allowed: true,
          remaining: 0,
          resetMs: 2 * MINUTE - 500,
          retryAfterMs: 0,
        });
        expect(await consume(k, 1, T0 + MINUTE + 500)).toMatchObject({ allowed: false, retryAfterMs: 500 });
      }
    });

    it('gives Retry-After to the millisecond: one ms early is refused, on time is allowed', async () => {
      const cases: Array<{ label: string; history: Array<[cost: number, at: number]>; cost: number; at: number }> = [
        { label: 'next window', history: [[120, T0 + 30_000]], cost: 1, at: T0 + 45_000 },
        {
          label: 'prev decaying',
          history: [
            [90, T0 + 10_000],
            [25, T0 + MINUTE + 100],
          ],
          cost: 7,
          at: T0 + MINUTE + 200,
        },
        {
          label: 'cost 10',
          history: [
            [60, T0 + 1_000],
            [55, T0 + MINUTE + 3_000],
          ],
          cost: 10,
          at: T0 + MINUTE + 3_001,
        },
        { label: 'whole budget', history: [[1, T0 + 59_999]], cost: 120, at: T0 + MINUTE },
        { label: 'two windows', history: [[120, T0]], cost: 120, at: T0 + 1 },
      ];
      for (const { label, history, cost, at } of cases) {
        const key = freshKey('retry');
        for (const [c, when] of history) expect((await consume(key, c, when)).allowed, label).toBe(true);
        const refused = await consume(key, cost, at);
        expect(refused.allowed, label).toBe(false);
        expect(refused.retryAfterMs, label).toBeGreaterThanOrEqual(1);
        expect(refused.retryAfterMs, label).toBeLessThanOrEqual(2 * MINUTE);
        expect(refused.resetMs, label).toBeGreaterThanOrEqual(refused.retryAfterMs);
        expect((await consume(key, cost, at + refused.retryAfterMs - 1)).allowed, label).toBe(false);
        expect((await consume(key, cost, at + refused.retryAfterMs)).allowed, label).toBe(true);
      }
    });

    it('gives budget back as the previous window decays, with reset to match', async () => {
      const key = freshKey('time');
      await consumeMany(key, 120);
      // 1 s into the next window: 120 x 59/60 = 118 counted.
      expect(await consume(key, 10, T0 + MINUTE + 1_000)).toEqual({
        allowed: false,
        remaining: 2,
        resetMs: 59_000,
        retryAfterMs: 4_000,
      });
      expect(await consume(key, 10, T0 + MINUTE + 4_999)).toEqual({
        allowed: false,
        remaining: 9,
        resetMs: 55_001,
        retryAfterMs: 1,
      });
      expect(await consume(key, 10, T0 + MINUTE + 5_000)).toEqual({
        allowed: true,
        remaining: 0,
        resetMs: 115_000,
        retryAfterMs: 0,
      });
      // Half a window in, half the previous window is still counted: 60 + 10 + 1.
      expect(await consume(key, 1, T0 + MINUTE + 30_000)).toEqual({
        allowed: true,
        remaining: 49,
        resetMs: 90_000,
        retryAfterMs: 0,
      });
      // Half-way through the window after: 11 x 1/2 + 1.
      expect(await consume(key, 1, T0 + 2 * MINUTE + 30_000)).toEqual({
        allowed: true,
        remaining: 113,
        resetMs: 90_000,
        retryAfterMs: 0,
      });
      // Two whole windows after the last charge the budget is full.
      expect(await consume(key, 1, T0 + 4 * MINUTE)).toEqual({
        allowed: true,
        remaining: 119,
        resetMs: 2 * MINUTE,
        retryAfterMs: 0,
      });
    });

    it('keeps keys independent', async () => {
      const a = freshKey('a');
      const b = freshKey('b');
      await consumeMany(a, 120);
      expect((await consume(a, 1, T0)).allowed).toBe(false);
      expect(await consume(b, 1, T0)).toMatchObject({ allowed: true, remaining: 119 });
      expect(await consume(`${a}x`, 1, T0, 600)).toMatchObject({ allowed: true, remaining: 599 });
    });

    it('prunes keys whose windows are over without changing any answer', async () => {
      const key = freshKey('prune');
      const full = freshKey('prune-full');
      await consumeMany(key, 10);
      await consumeMany(full, 120);
      expect(await getStore().prune(T0 + 4_999)).toBeGreaterThanOrEqual(0);
      expect(await consume(key, 1, T0 + 4_999)).toMatchObject({ allowed: true, remaining: 120 - 11 });
      // The last ms of the next window still counts 120 x 1 / 60 000 of `full`.
      expect(await getStore().prune(T0 + 2 * MINUTE - 1)).toBeGreaterThanOrEqual(0);
      expect(await consume(full, 1, T0 + 2 * MINUTE - 1)).toMatchObject({ allowed: true, remaining: 118 });
      expect(await getStore().prune(T0 + 10 * MINUTE)).toBeGreaterThanOrEqual(2);
      expect(await consume(key, 1, T0 + 10 * MINUTE)).toMatchObject({ allowed: true, remaining: 119 });
    });

    it('reads the budget without charging it for a cost of 0', async () => {
      const key = freshKey('peek');
      expect(await consume(key, 0, T0)).toEqual({ allowed: true, remaining: 120, resetMs: 0, retryAfterMs: 0 });
      expect(await getStore().prune(T0 + 1)).toBe(0);
      await consumeMany(key, 120);
      expect(await consume(key, 0, T0 + 1_000)).toEqual({
        allowed: true,
        remaining: 0,
        resetMs: 2 * MINUTE - 1_000,
        retryAfterMs: 0,
      });
      expect(await consume(key, 0, T0 + MINUTE + 1_000)).toEqual({
        allowed: true,
        remaining: 2,
        resetMs: 59_000,
        retryAfterMs: 0,
      });
      expect(await consume(key, 0, T0 + MINUTE + 1_000)).toMatchObject({ remaining: 2 });
    });

    it('gives back a charge in the window it was made in, and nothing once it has decayed away', async () => {
      const key = freshKey('refund');
      const limit = 5;
      await consumeMany(key, 5, 1, T0 + 1_000, limit);
      expect(await consume(key, 1, T0 + 2_000, limit)).toMatchObject({ allowed: false });
      await getStore().refund(key, 1, MINUTE, T0 + 1_000);
      expect(await consume(key, 0, T0 + 2_000, limit)).toMatchObject({ remaining: 1 });
      expect(await consume(key, 1, T0 + 2_000, limit)).toMatchObject({ allowed: true, remaining: 0 });
      // A charge of the previous window is taken off `prev`.
      await getStore().refund(key, 2, MINUTE, T0 + 1_000);
      expect(await consume(key, 0, T0 + MINUTE, limit)).toMatchObject({ remaining: 2 });
      // Two windows on, it counts nothing already; a refund changes nothing, and never goes below zero.
      await getStore().refund(key, 5, MINUTE, T0 + 1_000);
      await getStore().refund(key, 5, MINUTE, T0 + 1_000);
      expect(await consume(key, 0, T0 + MINUTE, limit)).toMatchObject({ remaining: 5 });
      await getStore().refund(freshKey('nothing-charged'), 1, MINUTE, T0);
    });

    it('rejects a cost it could never allow and a window it cannot count in whole ms', async () => {
      await expect(getStore().consume(freshKey('bad'), 121, 120, MINUTE, T0)).rejects.toThrow(RangeError);
      await expect(getStore().consume(freshKey('bad'), -1, 120, MINUTE, T0)).rejects.toThrow(RangeError);
      await expect(getStore().consume(freshKey('bad'), 1.5, 120, MINUTE, T0)).rejects.toThrow(RangeError);
      await expect(getStore().consume(freshKey('bad'), 1, 120, 1_000.5, T0)).rejects.toThrow(RangeError);
    });
  });
}
