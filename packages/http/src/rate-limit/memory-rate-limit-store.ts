import { gcraDecide, gcraStep, gcraSummary } from './gcra.ts';
import type { RateLimitDecision, RateLimitStore } from './rate-limit-store.ts';

export interface MemoryRateLimitStoreOptions {
  /** Most keys kept; beyond it the least recently charged key is forgotten. Default 100 000. */
  maxKeys?: number;
  /** How often (by the `now` passed to consume) replenished keys are swept out. Default 60 s. */
  sweepIntervalMs?: number;
}

/**
 * Counters in this process only: for a single instance, tests, or as the fallback when no database
 * is configured. Memory is bounded: replenished keys are swept out as time passes, and at `maxKeys`
 * the least recently charged key is dropped (that key then starts with a full budget, which errs on
 * the side of serving rather than refusing).
 */
export class MemoryRateLimitStore implements RateLimitStore {
  /** key -> TAT in µs. Map order is the order of the last charge, oldest first. */
  private readonly tats = new Map<string, number>();
  private readonly maxKeys: number;
  private readonly sweepIntervalUs: number;
  private nextSweepUs = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 100_000;
    this.sweepIntervalUs = (options.sweepIntervalMs ?? 60_000) * 1000;
    if (!Number.isSafeInteger(this.maxKeys) || this.maxKeys < 1) throw new RangeError(`maxKeys must be a positive integer, got ${this.maxKeys}.`);
  }

  /** Keys held now. */
  get size(): number {
    return this.tats.size;
  }

  async consume(key: string, cost: number, limit: number, windowMs: number, now: number): Promise<RateLimitDecision> {
    const step = gcraStep(cost, limit, windowMs, now);
    if (step.nowUs >= this.nextSweepUs) {
      this.sweep(step.nowUs);
      this.nextSweepUs = step.nowUs + this.sweepIntervalUs;
    }
    const decision = gcraDecide(this.tats.get(key) ?? null, step);
    // Why: a cost-0 consume only reads the budget (e.g. "may this sign-in go ahead?"); it writes nothing.
    if (decision.allowed && step.incrementUs > 0) {
      // Why: delete before set moves the key to the end, so the first key is always the stalest.
      this.tats.delete(key);
      this.tats.set(key, decision.tatUs);
      if (this.tats.size > this.maxKeys) this.tats.delete(this.tats.keys().next().value as string);
    }
    return gcraSummary(decision.allowed, decision.tatUs, step);
  }

  async prune(now: number): Promise<number> {
    return this.sweep(Math.round(now * 1000));
  }

  private sweep(nowUs: number): number {
    let removed = 0;
    for (const [key, tat] of this.tats) {
      if (tat <= nowUs) {
        this.tats.delete(key);
        removed += 1;
      }
    }
    return removed;
  }
}
