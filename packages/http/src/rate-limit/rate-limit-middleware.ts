import type { Context, Middleware } from 'koa';
import { RateLimitedError } from '../http-error.ts';
import type { RateLimitDecision, RateLimitStore } from './rate-limit-store.ts';
import { slidingWindowStep } from './sliding-window.ts';

/** The budget the rate-limit headers describe; kept in `ctx.state.rateLimit`. */
export interface RateLimitInfo {
  /** Which limiter (its `prefix`). */
  prefix: string;
  limit: number;
  remaining: number;
  /** Whole seconds until the requests counted now are older than the window: at most the window. */
  resetSeconds: number;
}

export interface RateLimitWarnLogger {
  warn(event: string, fields?: Record<string, unknown>): void;
}

export interface RateLimitOptions {
  store: RateLimitStore;
  /** Requests of cost 1 per window. */
  limit: number;
  /** Whole ms; default 60 000 (one minute). */
  windowMs?: number;
  /**
   * The budget this request draws on, e.g. the client IP or the authenticated key's id; null skips
   * this limiter. It is stored as is (PostgreSQL store): never return a secret such as the raw API key.
   */
  key: (ctx: Context) => string | null;
  /** Default 1. An integer from 0 to `limit` (the DOCX export and Markdown import cost 10). */
  cost?: (ctx: Context) => number;
  /**
   * A part of the request's cost charged only if the route asks for it with chargeDeferredCost,
   * once it knows the request needs the work (an export answered 304 from its validator does not).
   * Default 0.
   */
  deferredCost?: (ctx: Context) => number;
  /** Namespaces the keys of this limiter in the store (`ip`, `key`): `${prefix}:${key}`. */
  prefix: string;
  /** Told when the store fails and the request goes through unlimited (at most one line per 10 s). */
  logger?: RateLimitWarnLogger;
  /** Clock in ms; default Date.now. */
  now?: () => number;
  /** A store slower than this counts as failed. Default 2 000 ms. */
  storeTimeoutMs?: number;
}

const WARN_INTERVAL_MS = 10_000;

class StoreTimeoutError extends Error {
  constructor(ms: number) {
    super(`rate-limit store did not answer within ${ms} ms`);
    this.name = 'StoreTimeoutError';
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(ms)), ms);
  });
  // Why: when the timeout wins, a late rejection of the store must not become an unhandled rejection.
  promise.catch(() => {});
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Charges of `deferredCost` waiting for the route; each returns how to give its charge back. */
type DeferredCharge = () => Promise<() => Promise<void>>;

function deferredCharges(ctx: Context): DeferredCharge[] {
  ctx.state.deferredRateLimitCharges ??= [];
  return ctx.state.deferredRateLimitCharges as DeferredCharge[];
}

/**
 * Charges the deferred part of this request's cost (see `deferredCost`) to every limiter, at the
 * point where the route knows it will do the work. Over a budget: 429 `rate_limited`, and what the
 * other limiters took for it is given back.
 */
export async function chargeDeferredCost(ctx: Context): Promise<void> {
  const charges = deferredCharges(ctx).splice(0);
  const undo: Array<() => Promise<void>> = [];
  try {
    for (const charge of charges) undo.push(await charge());
  } catch (err) {
    for (const giveBack of undo) await giveBack().catch(() => {});
    throw err;
  }
}

/**
 * Writes the rate-limit headers when this budget is the tighter one (lower remaining; on a tie,
 * the later reset) or refused the request.
 */
function showBudget(ctx: Context, info: RateLimitInfo, refused: boolean): void {
  const current = ctx.state.rateLimit as RateLimitInfo | undefined;
  const tighter =
    !current ||
    info.remaining < current.remaining ||
    (info.remaining === current.remaining && info.resetSeconds > current.resetSeconds);
  if (!refused && !tighter && current?.prefix !== info.prefix) return;
  ctx.state.rateLimit = info;
  ctx.set('X-RateLimit-Limit', String(info.limit));
  ctx.set('X-RateLimit-Remaining', String(info.remaining));
  ctx.set('X-RateLimit-Reset', String(info.resetSeconds));
}

/**
 * Koa middleware charging `cost(ctx)` to the budget `prefix:key(ctx)` of `limit` per `windowMs`.
 *
 * Headers, on every response it sees (errors included: the error mapper keeps headers set with
 * ctx.set, and a 429 carries them too):
 * - `X-RateLimit-Limit`: the budget per window.
 * - `X-RateLimit-Remaining`: requests of cost 1 still allowed right now, after this one.
 * - `X-RateLimit-Reset`: whole seconds until every request counted now is older than the window,
 *   so never more than the window (not until the next request fits; on a 429, `Retry-After` says
 *   that, for this request's cost). Why capped: the sliding-window estimate assumes the previous
 *   window's requests were spread evenly, so it only reaches zero up to two windows on; a client
 *   reading "reset" as "seconds until my window is over" must never be told more than the window.
 *
 * Several limiters (per IP, then per key) share the headers: a limiter writes them only when its
 * budget is tighter than the one already written (lower remaining; on a tie, the later reset), and a
 * refusing limiter always writes them. So the client sees the constraint that binds first.
 *
 * Over the budget it throws RateLimitedError (429 `rate_limited`, `Retry-After` in whole seconds,
 * at least 1) and charges nothing. A refusal by a later limiter does not refund an earlier one: the
 * per-IP budget pays for every request, so guessing keys is throttled too.
 *
 * Why fail open: when the store fails or is slow (database down), the request goes on without a limit
 * and a warning is logged. Rate limiting protects capacity; refusing every request because its
 * counter is unreachable would turn a database hiccup into a full API outage, and the requests that
 * need the database fail on their own anyway. No rate-limit headers are sent then.
 */
export function rateLimit(options: RateLimitOptions): Middleware {
  const { store, limit, prefix, key, logger } = options;
  const windowMs = options.windowMs ?? 60_000;
  const now = options.now ?? Date.now;
  const storeTimeoutMs = options.storeTimeoutMs ?? 2_000;
  const cost = options.cost ?? (() => 1);
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new RangeError(`rateLimit "${prefix}": limit must be a positive integer, got ${limit}.`);
  if (!Number.isSafeInteger(windowMs) || windowMs <= 0)
    throw new RangeError(`rateLimit "${prefix}": windowMs must be a positive whole number of ms, got ${windowMs}.`);
  // Why: the stores' own bounds (limit x window must stay exact in integers) fail here, at startup,
  // rather than as a store failure that lets every request through.
  slidingWindowStep(0, limit, windowMs, 0);
  let nextWarnAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;

  const warnStoreFailure = (err: unknown, at: number) => {
    if (at < nextWarnAt) {
      suppressed += 1;
      return;
    }
    logger?.warn('rate_limit_store_failed', {
      limiter: prefix,
      failOpen: true,
      suppressedSinceLastWarning: suppressed,
      error: { name: (err as Error)?.name, code: (err as { code?: string })?.code, message: (err as Error)?.message },
    });
    nextWarnAt = at + WARN_INTERVAL_MS;
    suppressed = 0;
  };

  const checkedCost = (ctx: Context, charge: number, what: string): number => {
    if (!Number.isSafeInteger(charge) || charge < 0 || charge > limit) {
      throw new Error(
        `rateLimit "${prefix}": ${what} must be an integer from 0 to ${limit}, got ${charge} ` +
          `for ${ctx.method} ${ctx.path}.`,
      );
    }
    return charge;
  };

  /** Takes `charge` from the budget (429 when it does not fit); false when the store failed (fail open). */
  const take = async (ctx: Context, budget: string, charge: number, at: number): Promise<boolean> => {
    let decision: RateLimitDecision;
    try {
      decision = await withTimeout(store.consume(budget, charge, limit, windowMs, at), storeTimeoutMs);
    } catch (err) {
      warnStoreFailure(err, at);
      return false;
    }
    const resetSeconds = Math.ceil(Math.min(decision.resetMs, windowMs) / 1000);
    showBudget(ctx, { prefix, limit, remaining: decision.remaining, resetSeconds }, !decision.allowed);
    if (!decision.allowed) throw new RateLimitedError(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
    return true;
  };

  return async (ctx, next) => {
    const id = key(ctx);
    if (id === null) return next();
    const budget = `${prefix}:${id}`;
    const charge = checkedCost(ctx, cost(ctx), 'cost');
    const deferred = checkedCost(ctx, options.deferredCost?.(ctx) ?? 0, 'deferred cost');
    if (!(await take(ctx, budget, charge, now()))) return next();
    if (deferred > 0)
      deferredCharges(ctx).push(async () => {
        const at = now();
        const taken = await take(ctx, budget, deferred, at);
        return async () => {
          if (taken) await store.refund(budget, deferred, windowMs, at);
        };
      });
    return next();
  };
}
