import type { Knex } from 'knex';

/**
 * Gives the rest of a transaction its own statement time limit (`set local statement_timeout`):
 * a search less than the pool's, bulk imports and exports more. The client waits as long as the
 * longest of them (`DatabaseTimeouts.longestStatementMs`).
 */
export async function limitStatementTime(trx: Knex.Transaction, ms: number): Promise<void> {
  await trx.raw(`set local statement_timeout = ${Math.max(1, Math.floor(ms))}`);
}

/** True for a statement the server cancelled at its `statement_timeout` (not one cancelled otherwise). */
export function isStatementTimeout(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === '57014' && typeof e.message === 'string' && /statement timeout/i.test(e.message);
}
