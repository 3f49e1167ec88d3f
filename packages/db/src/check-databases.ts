import type { Knex } from 'knex';
import { DATABASE_NAMES, type DatabaseName } from './database-names.ts';
import { describeDatabaseError } from './database-errors.ts';

export type DatabaseChecks = Record<DatabaseName, string>;

/** The pooled connection died (the server restarted, or ended that session): a fresh one may well work. */
function isStaleConnection(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    e?.code === '57P01' ||
    e?.code === '57P02' ||
    e?.code === 'ECONNRESET' ||
    /Connection terminated|not queryable/i.test(e?.message ?? '')
  );
}

async function checkOne(db: Knex, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`timed out after ${timeoutMs} ms`), timeoutMs);
  });
  const probe = () => db.raw('select 1').timeout(timeoutMs, { cancel: false });
  const query = probe()
    // Why one retry: a connection the pool held from before a restart is not the database's health.
    .catch((err: unknown) => (isStaleConnection(err) ? probe() : Promise.reject(err)))
    .then(() => 'ok')
    .catch((err: unknown) => describeDatabaseError(err));
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Queries the three databases in parallel; each answers `ok` or a short reason within `timeoutMs`. */
export async function checkDatabases(
  dbs: Record<DatabaseName, Knex>,
  timeoutMs: number,
): Promise<{ ok: boolean; checks: DatabaseChecks }> {
  const results = await Promise.all(DATABASE_NAMES.map((n) => checkOne(dbs[n], timeoutMs)));
  const checks = Object.fromEntries(DATABASE_NAMES.map((n, i) => [n, results[i]])) as DatabaseChecks;
  return { ok: results.every((r) => r === 'ok'), checks };
}
