import type { Knex } from 'knex';
import type { RateLimitDecision, RateLimitStore } from './rate-limit-store.ts';
import {
  rollCounts,
  slidingWindowStep,
  summarizeCounts,
  type SlidingWindowStep,
  type WindowCounts,
} from './sliding-window.ts';

// One statement decides and charges. ON CONFLICT DO UPDATE locks the key's row and evaluates the SET
// against the latest committed version, so concurrent requests from any number of processes are
// serialised per key and share one budget without a read-then-write race.
// It mirrors sliding-window.ts: `r` is rollCounts, `fits` is fitsCounts (the same integer
// comparison, in bigint), and the row written is the rolled counts plus the cost when it fits.
// Why a fresh key is simply allowed: cost <= limit is checked before.
// Why the stored `allowed` column: RETURNING sees only the new row (PostgreSQL 17 has no OLD), and
// the counts alone cannot tell a refusal from an allowed request; the counts before the charge are
// the returned ones minus the cost when allowed.
// Why a refusal still writes the rolled counts: they mean exactly what the old row meant at `now`
// (rolling is only a change of representation), so nothing is taken, and the SET stays one tuple.
// Why the bindings go through the `arg` CTE: each value is bound once and named.
const CONSUME_SQL = `
with arg as (
  select ?::text as k, ?::bigint as now_ms, ?::bigint as win_start, ?::bigint as win_ms, ?::bigint as cost, ?::bigint as lim
)
insert into rate_limit_counters as c (key, window_start, window_ms, prev_count, curr_count, allowed)
select k, win_start, win_ms, 0, cost, true from arg
on conflict (key) do update set
  (window_start, window_ms, prev_count, curr_count, allowed) = (
    select r.ws, a.win_ms, r.prev, r.curr + case when d.fits then a.cost else 0 end, d.fits
    from arg a
    cross join lateral (
      select case when c.window_start >= a.win_start then c.window_start else a.win_start end as ws,
             case when c.window_start >= a.win_start then c.prev_count
                  when c.window_start >= a.win_start - a.win_ms then c.curr_count
                  else 0 end::bigint as prev,
             case when c.window_start >= a.win_start then c.curr_count else 0 end::bigint as curr
    ) r
    cross join lateral (
      select r.prev * (a.win_ms - (greatest(a.now_ms, r.ws) - r.ws)) + (r.curr + a.cost) * a.win_ms <= a.lim * a.win_ms as fits
    ) d
  )
returning window_start, prev_count, curr_count, allowed`;

interface CountsRow {
  window_start: string | number;
  prev_count: number;
  curr_count: number;
}

const countsOf = (row: CountsRow): WindowCounts => ({
  windowStart: Number(row.window_start),
  prev: row.prev_count,
  curr: row.curr_count,
});

/**
 * Counters in the control-plane table `rate_limit_counters` (migration 20261121000200), shared by
 * every service process using the same database. One upsert per consume; call `prune` now and then
 * (e.g. once a minute) to delete rows of keys whose windows are both over.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  constructor(private readonly knex: Knex) {}

  async consume(key: string, cost: number, limit: number, windowMs: number, now: number): Promise<RateLimitDecision> {
    const step = slidingWindowStep(cost, limit, windowMs, now);
    if (step.cost === 0) return this.peek(key, step);
    const result = await this.knex.raw<{ rows: Array<CountsRow & { allowed: boolean }> }>(CONSUME_SQL, [
      key,
      step.now,
      step.windowStart,
      step.windowMs,
      step.cost,
      step.limit,
    ]);
    const row = result.rows[0]!;
    const after = countsOf(row);
    const before = row.allowed ? { ...after, curr: after.curr - step.cost } : after;
    return summarizeCounts(before, row.allowed, step);
  }

  /** A cost-0 consume only reads the budget; it neither locks nor writes a row. */
  private async peek(key: string, step: SlidingWindowStep): Promise<RateLimitDecision> {
    const found = await this.knex.raw<{ rows: CountsRow[] }>(
      'select window_start, prev_count, curr_count from rate_limit_counters where key = ?',
      [key],
    );
    const stored = found.rows.length > 0 ? countsOf(found.rows[0]!) : null;
    return summarizeCounts(rollCounts(stored, step), true, step);
  }

  /** One UPDATE: the row is locked while the charge is taken off the window it was made in (see refundCounts). */
  async refund(key: string, cost: number, windowMs: number, chargedAt: number): Promise<void> {
    if (cost <= 0) return;
    const charged = slidingWindowStep(0, 1, windowMs, chargedAt).windowStart;
    await this.knex.raw(
      `update rate_limit_counters set
         curr_count = case when window_start = ?::bigint then greatest(curr_count - ?::integer, 0) else curr_count end,
         prev_count = case when window_start = ?::bigint + window_ms then greatest(prev_count - ?::integer, 0) else prev_count end
       where key = ? and window_ms = ?::bigint and window_start in (?::bigint, ?::bigint + ?::bigint)`,
      [charged, cost, charged, cost, key, windowMs, charged, charged, windowMs],
    );
  }

  async prune(now: number): Promise<number> {
    // A row whose windows are both over counts nothing: the same as no row, so deleting it is safe.
    const result = await this.knex.raw<{ rowCount: number }>(
      'delete from rate_limit_counters where window_start + 2 * window_ms <= ?::bigint',
      [Math.floor(now)],
    );
    return result.rowCount;
  }
}
