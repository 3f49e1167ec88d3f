import type { RateLimitDecision, RateLimitStore } from './rate-limit-store.ts';
import { consumeCounts, countsExpireAt, refundCounts, slidingWindowStep, type WindowCounts } from './sliding-window.ts';

export interface MemoryRateLimitStoreOptions {
  /** Most keys kept; beyond it the least recently charged key is forgotten. Default 100 000. */
  maxKeys?: number;
  /** How often (by the `now` passed to consume) keys with nothing counted are swept out. Default 60 s. */
  sweepIntervalMs?: number;
}

interface Entry extends WindowCounts {
  /** When both windows are over and the entry means the same as no entry. */
  expiresAt: number;
}

/**
 * Counters in this process only: for a single instance, tests, or as the fallback when no database
 * is configured. Memory is bounded: keys whose windows are over are swept out as time passes, and at
 * `maxKeys` the least recently charged key is dropped (that key then starts with a full budget,
 * which errs on the side of serving rather than refusing).
 */
export class MemoryRateLimitStore implements RateLimitStore {
  /** key -> sliding window counts. Map order is the order of the last charge, oldest first. */
  private readonly entries = new Map<string, Entry>();
  private readonly maxKeys: number;
  private readonly sweepIntervalMs: number;
  private nextSweepAt = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 100_000;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    if (!Number.isSafeInteger(this.maxKeys) || this.maxKeys < 1)
      throw new RangeError(`maxKeys must be a positive integer, got ${this.maxKeys}.`);
  }

  /** Keys held now. */
  get size(): number {
    return this.entries.size;
  }

  async consume(key: string, cost: number, limit: number, windowMs: number, now: number): Promise<RateLimitDecision> {
    const step = slidingWindowStep(cost, limit, windowMs, now);
    if (step.now >= this.nextSweepAt) {
      this.sweep(step.now);
      this.nextSweepAt = step.now + this.sweepIntervalMs;
    }
    const { decision, store } = consumeCounts(this.entries.get(key) ?? null, step);
    // Why: a refusal or a cost-0 consume (e.g. "may this sign-in go ahead?") writes nothing.
    if (store !== null) {
      // Why: delete before set moves the key to the end, so the first key is always the stalest.
      this.entries.delete(key);
      this.entries.set(key, { ...store, expiresAt: countsExpireAt(store, step.windowMs) });
      if (this.entries.size > this.maxKeys) this.entries.delete(this.entries.keys().next().value as string);
    }
    return decision;
  }

  async refund(key: string, cost: number, windowMs: number, chargedAt: number): Promise<void> {
    const entry = this.entries.get(key);
    const refunded = refundCounts(entry ?? null, cost, chargedAt, windowMs);
    if (entry && refunded) this.entries.set(key, { ...refunded, expiresAt: entry.expiresAt });
  }

  async prune(now: number): Promise<number> {
    return this.sweep(now);
  }

  private sweep(now: number): number {
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= now) {
        this.entries.delete(key);
        removed += 1;
      }
    }
    return removed;
  }
}
