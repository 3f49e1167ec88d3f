import { describe, expect, it } from 'vitest';
import { consumeCounts, fitsCounts, rollCounts, slidingWindowStep, type WindowCounts } from './sliding-window.ts';

const MINUTE = 60_000;
const T0 = 1_763_700_000_000; // a whole minute

/** A tiny deterministic PRNG, so failures can be replayed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The estimate as the requirement states it, in floats: for cross-checking the integer version. */
function estimate(stored: WindowCounts | null, limit: number, windowMs: number, now: number): number {
  const rolled = rollCounts(stored, slidingWindowStep(0, limit, windowMs, now));
  const elapsed = Math.max(now, rolled.windowStart) - rolled.windowStart;
  return rolled.prev * (1 - elapsed / windowMs) + rolled.curr;
}

describe('sliding window arithmetic', () => {
  it('rolls counts into the window holding now', () => {
    const step = slidingWindowStep(1, 120, MINUTE, T0 + 5);
    expect(step.windowStart).toBe(T0);
    expect(rollCounts(null, step)).toEqual({ windowStart: T0, prev: 0, curr: 0 });
    expect(rollCounts({ windowStart: T0, prev: 3, curr: 4 }, step)).toEqual({ windowStart: T0, prev: 3, curr: 4 });
    expect(rollCounts({ windowStart: T0 - MINUTE, prev: 3, curr: 4 }, step)).toEqual({
      windowStart: T0,
      prev: 4,
      curr: 0,
    });
    expect(rollCounts({ windowStart: T0 - 2 * MINUTE, prev: 3, curr: 4 }, step)).toEqual({
      windowStart: T0,
      prev: 0,
      curr: 0,
    });
    // Written by a process whose clock is ahead: kept, and judged as at the start of that window.
    expect(rollCounts({ windowStart: T0 + MINUTE, prev: 3, curr: 4 }, step)).toEqual({
      windowStart: T0 + MINUTE,
      prev: 3,
      curr: 4,
    });
    expect(slidingWindowStep(1, 120, MINUTE, -1).windowStart).toBe(-MINUTE);
    expect(slidingWindowStep(1, 120, MINUTE, T0 + 0.9).now).toBe(T0);
  });

  it('decides exactly at the limit, with no float rounding', () => {
    // prev 120 at 500 ms into the window: 120 x 59 500 / 60 000 = 119 exactly, so one fits.
    const stored = { windowStart: T0 - MINUTE, prev: 0, curr: 120 };
    expect(consumeCounts(stored, slidingWindowStep(1, 120, MINUTE, T0 + 499)).decision.allowed).toBe(false);
    expect(consumeCounts(stored, slidingWindowStep(1, 120, MINUTE, T0 + 500)).decision).toEqual({
      allowed: true,
      remaining: 0,
      resetMs: 2 * MINUTE - 500,
      retryAfterMs: 0,
    });
    // Limits that do not divide the window: 7 per minute, prev 7: one fits once 7 x (60 000 - e) <= 6 x 60 000.
    const seven = { windowStart: T0 - MINUTE, prev: 0, curr: 7 };
    const refused = consumeCounts(seven, slidingWindowStep(1, 7, MINUTE, T0)).decision;
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 8_572 }); // ceil(60 000 / 7)
    expect(consumeCounts(seven, slidingWindowStep(1, 7, MINUTE, T0 + 8_571)).decision.allowed).toBe(false);
    expect(consumeCounts(seven, slidingWindowStep(1, 7, MINUTE, T0 + 8_572)).decision.allowed).toBe(true);
  });

  it('matches the float formula, and gives Retry-After, reset and remaining that hold ms by ms', () => {
    const random = prng(20261121);
    const windowMs = 1_000;
    for (let round = 0; round < 400; round += 1) {
      const limit = 1 + Math.floor(random() * 12);
      const cost = 1 + Math.floor(random() * limit);
      const windowStart = T0 + windowMs * Math.floor(random() * 3);
      const stored = {
        windowStart,
        prev: Math.floor(random() * (limit + 1)),
        curr: Math.floor(random() * (limit + 1)),
      };
      const now = T0 + 2 * windowMs + Math.floor(random() * windowMs);
      const step = slidingWindowStep(cost, limit, windowMs, now);
      const { decision, store } = consumeCounts(stored, step);
      const est = estimate(stored, limit, windowMs, now);
      const context = JSON.stringify({ limit, cost, stored, now: now - T0, decision });
      // Allowed iff estimate + cost <= limit (floats agree away from exact ties; ties are integers above).
      if (Math.abs(est + cost - limit) > 1e-9) expect(decision.allowed, context).toBe(est + cost < limit);
      const after = decision.allowed ? est + cost : est;
      if (Math.abs(after - Math.round(after)) > 1e-9)
        expect(decision.remaining, context).toBe(Math.max(0, Math.floor(limit - after)));
      const counts = store ?? stored;
      // resetMs: the first ms from which nothing is counted any more.
      let zeroAt = now;
      for (let t = now; t <= now + 3 * windowMs; t += 1) if (estimate(counts, limit, windowMs, t) > 0) zeroAt = t + 1;
      expect(decision.resetMs, context).toBe(zeroAt - now);
      if (decision.allowed) {
        expect(decision.retryAfterMs).toBe(0);
        continue;
      }
      expect(store, context).toBeNull();
      // retryAfterMs: the first ms at which the same request fits (the estimate only falls with time).
      let fitsAt = now;
      while (
        !fitsCounts(
          rollCounts(stored, slidingWindowStep(cost, limit, windowMs, fitsAt)),
          slidingWindowStep(cost, limit, windowMs, fitsAt),
        )
      )
        fitsAt += 1;
      expect(decision.retryAfterMs, context).toBe(fitsAt - now);
      expect(decision.retryAfterMs, context).toBeLessThanOrEqual(2 * windowMs);
    }
  });

  it('is an approximation: it assumes the previous window was used evenly', () => {
    // Documented limit, not a goal: 100 requests in the last ms before a boundary, then 21 spread
    // over the next second. At 1 s, 100 x 59/60 + 20 = 118.3, so the 121st fits: prev decays by
    // prev x elapsed / window, and 100 x 1 s >= 60 s. Bursts shorter than window / limit (500 ms
    // here) can never do this, nor 60 + 61 around a boundary within less than a second (60 x d < 60 s).
    let stored: WindowCounts | null = null;
    const allowed: boolean[] = [];
    const charge = (now: number) => {
      const { decision, store } = consumeCounts(stored, slidingWindowStep(1, 120, MINUTE, now));
      stored = store ?? stored;
      allowed.push(decision.allowed);
    };
    for (let i = 0; i < 100; i += 1) charge(T0 + MINUTE - 1);
    for (let i = 0; i < 21; i += 1) charge(T0 + MINUTE + 50 * i);
    expect(allowed.filter(Boolean)).toHaveLength(121);
  });

  it('rejects arguments it cannot count exactly', () => {
    expect(() => slidingWindowStep(1, 120, 1.5, T0)).toThrow(RangeError);
    expect(() => slidingWindowStep(1, 120, 0, T0)).toThrow(RangeError);
    expect(() => slidingWindowStep(1, 0, MINUTE, T0)).toThrow(RangeError);
    expect(() => slidingWindowStep(1, 2 ** 31, MINUTE, T0)).toThrow(RangeError);
    expect(() => slidingWindowStep(1, 2 ** 30, 2 ** 22, T0)).toThrow(RangeError);
    expect(() => slidingWindowStep(1, 120, MINUTE, Number.NaN)).toThrow(RangeError);
    expect(() => slidingWindowStep(121, 120, MINUTE, T0)).toThrow(RangeError);
  });
});
