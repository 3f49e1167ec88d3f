import type { RateLimitDecision } from './rate-limit-store.ts';

// Why GCRA (generic cell rate algorithm): it keeps ONE number per key, the "theoretical arrival
// time" (TAT): the moment at which the key's budget would be fully replenished. A request of cost c
// moves TAT forward by c emission intervals (window / limit) and is allowed when the new TAT is no
// further than one window ahead of now. It is exact (no fixed-window burst of 2x at the boundary,
// no approximation like the two-window weighted sliding counter), lets budget come back smoothly
// (one request every window/limit), and in PostgreSQL it is one row and one upsert per request.
//
// Why integer microseconds: with a float TAT, 120 requests of window/120 can add up to a hair more
// than the window and refuse the 120th. Every quantity here is a whole number of microseconds, and
// the tolerance is `limit` emission intervals exactly, so "limit allowed at once, limit+1 refused"
// holds for any limit, in JavaScript and in SQL alike. Epoch microseconds (~1.8e15) stay well below
// 2^53, and PostgreSQL stores them as bigint.

export interface GcraStep {
  /** The caller's clock, µs since the epoch. */
  nowUs: number;
  /** Emission interval: the time one unit of budget takes to come back. */
  emissionUs: number;
  /** How far ahead of now TAT may be: `limit` emission intervals (the burst size). */
  toleranceUs: number;
  /** How far this request moves TAT: `cost` emission intervals. */
  incrementUs: number;
}

/** Validates the arguments of `consume` and turns them into integer microseconds. */
export function gcraStep(cost: number, limit: number, windowMs: number, now: number): GcraStep {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`Rate limit must be a positive integer, got ${limit}.`);
  if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError(`Rate-limit window must be a positive number of ms, got ${windowMs}.`);
  if (!Number.isSafeInteger(cost) || cost < 0 || cost > limit) {
    throw new RangeError(`Rate-limit cost must be an integer from 0 to the limit (${limit}), got ${cost}.`);
  }
  if (!Number.isFinite(now)) throw new RangeError(`Rate-limit clock must be a finite number of ms, got ${now}.`);
  const emissionUs = Math.max(1, Math.round((windowMs * 1000) / limit));
  return { nowUs: Math.round(now * 1000), emissionUs, toleranceUs: emissionUs * limit, incrementUs: emissionUs * cost };
}

/** The decision, given the stored TAT (null: no row). Returns the TAT to store (unchanged when refused). */
export function gcraDecide(storedTatUs: number | null, step: GcraStep): { allowed: boolean; tatUs: number } {
  const base = Math.max(storedTatUs ?? step.nowUs, step.nowUs);
  const next = base + step.incrementUs;
  if (next - step.nowUs <= step.toleranceUs) return { allowed: true, tatUs: next };
  return { allowed: false, tatUs: storedTatUs ?? step.nowUs };
}

/** The numbers for the headers, from the decision and the TAT stored after it. */
export function gcraSummary(allowed: boolean, tatUs: number, step: GcraStep): RateLimitDecision {
  const debtUs = Math.max(tatUs, step.nowUs) - step.nowUs;
  const remaining = Math.max(0, Math.floor((step.toleranceUs - debtUs) / step.emissionUs));
  const retryAfterUs = allowed ? 0 : debtUs + step.incrementUs - step.toleranceUs;
  return { allowed, remaining, resetMs: Math.ceil(debtUs / 1000), retryAfterMs: Math.ceil(retryAfterUs / 1000) };
}
