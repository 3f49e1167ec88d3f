import type { RateLimitDecision } from './rate-limit-store.ts';

// Why a sliding window counter: the requirement is "N per minute": the (N+1)th request of a quick
// burst must be refused. GCRA (the previous algorithm) refills one request every window/N, so a
// client firing as fast as it can got N plus whatever refilled meanwhile (121 of 121 in ~1 s at
// 120/min, ~2N in its first minute). Fixed windows count exactly per window but allow 2N across a
// boundary (N just before it, N just after). The sliding window counter keeps, per key, the count of
// the current fixed window and of the previous one, and estimates the usage of the last window as
//   estimate(now) = prev * (1 - elapsed / windowMs) + curr,    elapsed = now - windowStart,
// i.e. it assumes the previous window's requests were spread evenly. A request of cost c is allowed
// iff estimate + c <= limit; then curr += c; a refusal changes nothing. That is O(1) state (one row
// of a few numbers per key), one upsert in PostgreSQL, and:
// - no fixed window ever counts more than `limit` (curr <= estimate);
// - a fresh client's burst of limit+1 requests gets its last one only if it straddles a window
//   boundary with (requests before the boundary) x (time from the boundary to the last request)
//   >= windowMs. So it is always refused when the burst lasts less than windowMs / limit (500 ms at
//   120/min), and 60 requests just before a boundary plus 61 in the second after it are refused the
//   121st unless that one comes a full second after the boundary (60 x 1 s = 60 s);
// - it is an approximation, not a sliding log: it assumes the previous window was used evenly. A
//   client that starts firing as fast as it can `phase` ms into a window gets its `limit` at once,
//   then up to limit x phase / windowMs more within its first windowMs (so up to ~2 x limit; an
//   idle-then-burst-at-the-end client can do the same on purpose). From its first window boundary on,
//   a steady client stays at `limit` per rolling window, give or take one request.
//
// Why integers only: the comparison is done scaled by windowMs,
//   prev * (windowMs - elapsed) + (curr + c) * windowMs <= limit * windowMs,
// with whole milliseconds, so JavaScript (memory store) and SQL (PostgreSQL store, which mirrors
// `rollCounts` and `fitsCounts` in its upsert) decide identically, with no float rounding at the edge.

/** The arguments of one consume, validated and in whole milliseconds. */
export interface SlidingWindowStep {
  /** The caller's clock, whole ms since the epoch (floored). */
  now: number;
  /** Start of the fixed window holding `now`: floor(now / windowMs) * windowMs. */
  windowStart: number;
  windowMs: number;
  limit: number;
  cost: number;
}

/** What a key stores: the window its counts belong to, the count of that window and of the one before. */
export interface WindowCounts {
  windowStart: number;
  prev: number;
  curr: number;
}

/** Counts are stored as PostgreSQL `integer`. */
const MAX_LIMIT = 2_147_483_647;
/** Scaled sums reach 3 x limit x windowMs; keep them exact in a double (and in a bigint). */
const MAX_LIMIT_TIMES_WINDOW = 2 ** 51;

/** floor(a / b) for integers a >= 0, b > 0, exact for safe integers. */
function floorDiv(a: number, b: number): number {
  return (a - (a % b)) / b;
}

/** Validates the arguments of `consume` and turns them into whole milliseconds. */
export function slidingWindowStep(cost: number, limit: number, windowMs: number, now: number): SlidingWindowStep {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new RangeError(`Rate limit must be an integer from 1 to ${MAX_LIMIT}, got ${limit}.`);
  }
  if (!Number.isSafeInteger(windowMs) || windowMs < 1)
    throw new RangeError(`Rate-limit window must be a positive whole number of ms, got ${windowMs}.`);
  if (limit * windowMs > MAX_LIMIT_TIMES_WINDOW)
    throw new RangeError(`Rate limit x window is too large (${limit} x ${windowMs} ms).`);
  if (!Number.isSafeInteger(cost) || cost < 0 || cost > limit) {
    throw new RangeError(`Rate-limit cost must be an integer from 0 to the limit (${limit}), got ${cost}.`);
  }
  const t = Math.floor(now);
  if (!Number.isSafeInteger(t) || Math.abs(t) > 2 ** 51)
    throw new RangeError(`Rate-limit clock must be a finite number of ms, got ${now}.`);
  const windowStart = t - (((t % windowMs) + windowMs) % windowMs);
  return { now: t, windowStart, windowMs, limit, cost };
}

/**
 * The stored counts carried to the window holding `now` (SQL mirror: the `r` subquery of the upsert).
 * - stored window at or after the current one: kept as is. After it only happens when this clock is
 *   behind the one that wrote the row (another process); the request is then judged as if made at
 *   the start of the stored window, which errs on the side of counting;
 * - stored window is the previous one (or less than one window before this one): curr becomes prev;
 * - older, or nothing stored: empty.
 */
export function rollCounts(stored: WindowCounts | null, step: SlidingWindowStep): WindowCounts {
  if (stored === null) return { windowStart: step.windowStart, prev: 0, curr: 0 };
  if (stored.windowStart >= step.windowStart) return { ...stored };
  if (stored.windowStart >= step.windowStart - step.windowMs)
    return { windowStart: step.windowStart, prev: stored.curr, curr: 0 };
  return { windowStart: step.windowStart, prev: 0, curr: 0 };
}

/** Ms from the start of the (rolled) window to the moment the request is judged at. */
function elapsedIn(counts: WindowCounts, step: SlidingWindowStep): number {
  return Math.max(step.now, counts.windowStart) - counts.windowStart;
}

/** estimate x windowMs, for rolled counts. */
function scaledEstimate(counts: WindowCounts, step: SlidingWindowStep): number {
  return counts.prev * (step.windowMs - elapsedIn(counts, step)) + counts.curr * step.windowMs;
}

/** Whether `step.cost` fits on the rolled counts (SQL mirror: `fits` in the upsert). */
export function fitsCounts(counts: WindowCounts, step: SlidingWindowStep): boolean {
  return scaledEstimate(counts, step) + step.cost * step.windowMs <= step.limit * step.windowMs;
}

/**
 * The numbers for the headers. `counts` are the rolled counts BEFORE this request was charged;
 * `allowed` says whether it was (then `step.cost` is added here).
 */
export function summarizeCounts(counts: WindowCounts, allowed: boolean, step: SlidingWindowStep): RateLimitDecision {
  const { limit, windowMs, cost, now } = step;
  const { windowStart, prev } = counts;
  const curr = counts.curr + (allowed ? cost : 0);
  const left = limit * windowMs - scaledEstimate({ windowStart, prev, curr }, step);
  const remaining = left <= 0 ? 0 : floorDiv(left, windowMs);
  // The estimate is 0 once prev has decayed and curr, become prev, has decayed too.
  const resetAt = curr > 0 ? windowStart + 2 * windowMs : prev > 0 ? windowStart + windowMs : now;
  return {
    allowed,
    remaining,
    resetMs: resetAt - now,
    retryAfterMs: allowed ? 0 : Math.max(1, retryAt(counts, step) - now),
  };
}

/**
 * The first whole ms at which a refused request of `step.cost` fits: the estimate only falls with
 * time, linearly within a window, so solve for the elapsed time.
 */
function retryAt(counts: WindowCounts, step: SlidingWindowStep): number {
  const { limit, windowMs, cost } = step;
  const { windowStart, prev, curr } = counts;
  if (curr + cost <= limit) {
    // In this window: prev * (windowMs - e) <= (limit - curr - cost) * windowMs. A refusal here means
    // prev > 0; the answer is at most windowStart + windowMs, where prev = 0 and curr + cost fits.
    return windowStart + windowMs - floorDiv((limit - curr - cost) * windowMs, prev);
  }
  // Not before the next window, where curr becomes prev (curr > 0 here) and nothing is counted yet:
  // curr * (windowMs - e) <= (limit - cost) * windowMs. At most two windows on (cost = limit).
  return windowStart + 2 * windowMs - floorDiv((limit - cost) * windowMs, curr);
}

/**
 * One whole consume on stored counts (the memory store; PostgreSQL does the same in its upsert).
 * `store` is what to write back: null when nothing changes (refused, or cost 0).
 */
export function consumeCounts(
  stored: WindowCounts | null,
  step: SlidingWindowStep,
): { decision: RateLimitDecision; store: WindowCounts | null } {
  const rolled = rollCounts(stored, step);
  // Why cost 0 is always allowed: it only reads the budget (even one over a since lowered limit).
  const allowed = step.cost === 0 || fitsCounts(rolled, step);
  const store = allowed && step.cost > 0 ? { ...rolled, curr: rolled.curr + step.cost } : null;
  return { decision: summarizeCounts(rolled, allowed, step), store };
}

/** When stored counts become the same as nothing stored (both windows over): what prune uses. */
export function countsExpireAt(counts: WindowCounts, windowMs: number): number {
  return counts.windowStart + 2 * windowMs;
}

/**
 * Stored counts with an earlier charge of `cost`, made at `chargedAt`, given back (a sign-in that
 * turned out right). The charge sits in the window it was made in: `curr` while that window is the
 * stored one, `prev` once one window has passed; older charges count nothing any more. Null when
 * nothing changes.
 */
export function refundCounts(
  stored: WindowCounts | null,
  cost: number,
  chargedAt: number,
  windowMs: number,
): WindowCounts | null {
  if (stored === null || cost <= 0) return null;
  const charged = slidingWindowStep(0, 1, windowMs, chargedAt).windowStart;
  if (stored.windowStart === charged) return { ...stored, curr: Math.max(0, stored.curr - cost) };
  if (stored.windowStart === charged + windowMs) return { ...stored, prev: Math.max(0, stored.prev - cost) };
  return null;
}
