import type { Knex } from 'knex';

/**
 * Rate-limit counters shared by all service processes (packages/http PostgresRateLimitStore): one row
 * per budget key holding its GCRA "theoretical arrival time" in µs since the epoch. A row whose
 * `tat_us` is in the past means a full budget, the same as no row, so pruning is always safe.
 */
export async function up(knex: Knex): Promise<void> {
  // Why unlogged: every REST request updates a row here; skipping the WAL makes that cheap, and the
  // only loss on a crash (or on a standby after failover) is that budgets start full again.
  // Why fillfactor 70: free space on each page lets the constant updates stay HOT (no index churn;
  // tat_us is deliberately not indexed, so prune scans the table, which stays as small as the set of
  // keys active in the last window).
  await knex.raw(`
    create unlogged table rate_limit_counters (
      key text primary key,
      tat_us bigint not null,
      allowed boolean not null
    ) with (fillfactor = 70)`);
  await knex.raw(`comment on column rate_limit_counters.tat_us is 'GCRA theoretical arrival time, microseconds since the Unix epoch: when this key''s budget is fully back'`);
  await knex.raw(`comment on column rate_limit_counters.allowed is 'decision of the latest consume, returned by the same upsert'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limit_counters');
}
