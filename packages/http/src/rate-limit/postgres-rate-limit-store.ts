import type { Knex } from 'knex';
import { gcraStep, gcraSummary } from './gcra.ts';
import type { RateLimitDecision, RateLimitStore } from './rate-limit-store.ts';

// One statement decides and charges. ON CONFLICT DO UPDATE locks the key's row and evaluates the SET
// against the latest committed version, so concurrent requests from any number of processes are
// serialised per key and share one budget without a read-then-write race.
// Bindings, in order: key; TAT of a fresh key (now + increment); then increment and the latest
// acceptable TAT (now + tolerance) wherever they appear.
// Why a fresh key is simply allowed: cost <= limit is checked before, so increment <= tolerance.
// Why the stored `allowed` column: RETURNING sees only the new row (PostgreSQL 17 has no OLD), and a
// refusal leaves TAT unchanged, which alone cannot be told apart from an allowed request.
// Why `greatest(c.tat_us + inc, excluded.tat_us)`: that is max(tat, now) + inc, as excluded.tat_us = now + inc.
const CONSUME_SQL = `
insert into rate_limit_counters as c (key, tat_us, allowed)
values (?, ?::bigint, true)
on conflict (key) do update set
  tat_us = case when greatest(c.tat_us + ?::bigint, excluded.tat_us) <= ?::bigint
                then greatest(c.tat_us + ?::bigint, excluded.tat_us) else c.tat_us end,
  allowed = greatest(c.tat_us + ?::bigint, excluded.tat_us) <= ?::bigint
returning tat_us, allowed`;

/**
 * Counters in the control-plane table `rate_limit_counters` (migration 20261121000200), shared by
 * every service process using the same database. One upsert per consume; call `prune` now and then
 * (e.g. once a minute) to delete rows of keys whose budget is fully back.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  constructor(private readonly knex: Knex) {}

  async consume(key: string, cost: number, limit: number, windowMs: number, now: number): Promise<RateLimitDecision> {
    const step = gcraStep(cost, limit, windowMs, now);
    if (step.incrementUs === 0) {
      // Why: a cost-0 consume only reads the budget; it neither locks nor writes a row.
      const found = await this.knex.raw<{ rows: Array<{ tat_us: string | number }> }>('select tat_us from rate_limit_counters where key = ?', [key]);
      return gcraSummary(true, found.rows.length > 0 ? Number(found.rows[0]!.tat_us) : step.nowUs, step);
    }
    const maxTat = step.nowUs + step.toleranceUs;
    const inc = step.incrementUs;
    const result = await this.knex.raw<{ rows: Array<{ tat_us: string | number; allowed: boolean }> }>(CONSUME_SQL, [
      key,
      step.nowUs + inc,
      inc,
      maxTat,
      inc,
      inc,
      maxTat,
    ]);
    const row = result.rows[0]!;
    return gcraSummary(row.allowed, Number(row.tat_us), step);
  }

  async prune(now: number): Promise<number> {
    const result = await this.knex.raw<{ rowCount: number }>('delete from rate_limit_counters where tat_us <= ?::bigint', [Math.round(now * 1000)]);
    return result.rowCount;
  }
}
