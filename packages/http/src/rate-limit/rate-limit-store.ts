/** What one `consume` decided, and the numbers the rate-limit headers are built from. */
export interface RateLimitDecision {
  /** True when the request fits the budget; its cost has then been taken. A refusal takes nothing. */
  allowed: boolean;
  /** Whole requests of cost 1 that would still be allowed right now (after this one, if allowed). */
  remaining: number;
  /** Milliseconds until the whole budget (`limit`) is available again. 0 when nothing is used. */
  resetMs: number;
  /** Refused: milliseconds until a request of the same cost would be allowed. Allowed: 0. */
  retryAfterMs: number;
}

/**
 * Where rate-limit counters live. `key` names one budget (callers prefix it, e.g. `ip:203.0.113.7`);
 * `limit` requests of cost 1 per `windowMs`; `now` is the caller's clock in ms since the epoch, passed
 * in so tests never sleep (whole ms: it is floored); `windowMs` is a whole number of ms. Both stores
 * implement the same sliding window counter (see sliding-window.ts), so they answer alike. A `cost`
 * of 0 reads the budget without charging or writing anything (always allowed).
 */
export interface RateLimitStore {
  consume(key: string, cost: number, limit: number, windowMs: number, now: number): Promise<RateLimitDecision>;
  /**
   * Gives back `cost` charged to `key` by a consume at `chargedAt` (same `windowMs`), atomically.
   * For callers that charge before they know whether the request counts (sign-in: charged before
   * the password is checked, so parallel guesses cannot all pass the check; given back on success).
   */
  refund(key: string, cost: number, windowMs: number, chargedAt: number): Promise<void>;
  /** Forgets budgets whose windows are both over at `now` (they count nothing); returns how many were removed. */
  prune(now: number): Promise<number>;
}
