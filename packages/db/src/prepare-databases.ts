import type { Knex } from 'knex';
import type { DatabaseName } from './database-names.ts';
import { migrateDatabases } from './migrate.ts';
import { createUntimedKnex } from './open-databases.ts';
import { assertNotDowngrade, recordInstallation } from './version-guard.ts';

/** Start-up order: refuse a downgrade, migrate all three databases, then record our version. */
export async function prepareDatabases(
  dbs: Record<DatabaseName, Knex>,
  runningVersion: string,
): Promise<Record<DatabaseName, string | null>> {
  await assertNotDowngrade(dbs.controlPlane, runningVersion);
  // Why untimed: a migration of a large installation may rightly run longer than a request may.
  const untimed = {
    controlPlane: createUntimedKnex(dbs.controlPlane),
    shared: createUntimedKnex(dbs.shared),
    tenant: createUntimedKnex(dbs.tenant),
  };
  let heads: Record<DatabaseName, string | null>;
  try {
    heads = await migrateDatabases(untimed);
  } finally {
    await Promise.all(Object.values(untimed).map((db) => db.destroy()));
  }
  await recordInstallation(dbs.controlPlane, runningVersion, heads);
  return heads;
}
