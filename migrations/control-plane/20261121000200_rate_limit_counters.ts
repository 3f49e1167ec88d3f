import type { Knex } from 'knex';

/**
 * Rate-limit counters shared by all service processes (packages/http PostgresRateLimitStore): one row
 * per budget key holding its sliding window counter: the fixed window its counts belong to, the count
 * of that window and of the one before. A row whose windows are both over (window_start + 2 x
 * window_ms <= now) counts nothing, the same as no row, so pruning it is always safe.
 */
export async function up(knex: Knex): Promise<void> {
  // Why unlogged: every REST request updates a row here; skipping the WAL makes that cheap, and the
  // only loss on a crash (or on a standby after failover) is that budgets start full again.
  // Why fillfactor 70: free space on each page lets the constant updates stay HOT (no index churn;
  // window_start is deliberately not indexed, so prune scans the table, which stays as small as the
  // set of keys active in the last two windows).
  await knex.raw(`
    create unlogged table rate_limit_counters (
      key text primary key,
      window_start bigint not null,
      window_ms bigint not null,
      prev_count integer not null,
      curr_count integer not null,
      allowed boolean not null
    ) with (fillfactor = 70)`);
  await knex.raw(
    `comment on column rate_limit_counters.window_start is 'start of the fixed window ` +
      `curr_count belongs to, milliseconds since the Unix epoch (a multiple of ` +
      `window_ms)'`,
  );
  await knex.raw(`comment on column rate_limit_counters.window_ms is 'length of this key''s window in milliseconds'`);
  await knex.raw(
    `comment on column rate_limit_counters.prev_count is 'cost counted in the window before window_start'`,
  );
  await knex.raw(
    `comment on column rate_limit_counters.curr_count is 'cost counted in the window starting at window_start'`,
  );
  await knex.raw(
    `comment on column rate_limit_counters.allowed is 'decision of the latest consume, returned by the same upsert'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limit_counters');
}
