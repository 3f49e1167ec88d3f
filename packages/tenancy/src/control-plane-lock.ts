import type { Knex } from 'knex';

/** First key of our two-key advisory locks (bootstrapOrganization uses the one-key space). */
export const LOCK_SPACE = { provisioning: 727101, tenantMigration: 727102 } as const;

/**
 * Runs `work` while holding a transaction-scoped advisory lock in the control plane on
 * (space, hashtext(key)). Transaction-scoped because PgBouncer in transaction mode may hand a
 * session-level lock's connection to another client. The lock is polled with pg_try_advisory_xact_lock
 * instead of waited for, so no statement outlives the pool's statement or client timeouts however
 * long the holder takes; the holding transaction turns off the idle-in-transaction timeout for
 * itself (SET LOCAL) because it sits idle while `work` runs on other connections.
 *
 * `onWait` is called once when the lock is held elsewhere (e.g. to log "waiting"). Gives up after
 * `maxWaitMs` and returns `{ acquired: false }`.
 */
export async function withControlPlaneLock<T>(
  controlPlane: Knex,
  space: number,
  key: string,
  work: () => Promise<T>,
  options: { maxWaitMs: number; pollMs?: number; onWait?: () => void },
): Promise<{ acquired: true; value: T } | { acquired: false }> {
  const deadline = Date.now() + options.maxWaitMs;
  let waited = false;
  for (;;) {
    const outcome = await controlPlane.transaction(async (trx) => {
      await trx.raw('set local idle_in_transaction_session_timeout = 0');
      const { rows } = (await trx.raw('select pg_try_advisory_xact_lock(?, hashtext(?)) as locked', [space, key])) as {
        rows: Array<{ locked: boolean }>;
      };
      if (!rows[0]?.locked) return { acquired: false as const };
      return { acquired: true as const, value: await work() };
    });
    if (outcome.acquired) return outcome;
    if (Date.now() >= deadline) return outcome;
    if (!waited) options.onWait?.();
    waited = true;
    await new Promise((r) => setTimeout(r, Math.min(options.pollMs ?? 250, Math.max(1, deadline - Date.now()))));
  }
}
