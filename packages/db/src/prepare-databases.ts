import type { Knex } from 'knex';
import type { DatabaseName } from './database-names.ts';
import { migrateDatabases } from './migrate.ts';
import { assertNotDowngrade, recordInstallation } from './version-guard.ts';

/** Start-up order: refuse a downgrade, migrate all three databases, then record our version. */
export async function prepareDatabases(dbs: Record<DatabaseName, Knex>, runningVersion: string): Promise<Record<DatabaseName, string | null>> {
  await assertNotDowngrade(dbs.controlPlane, runningVersion);
  const heads = await migrateDatabases(dbs);
  await recordInstallation(dbs.controlPlane, runningVersion, heads);
  return heads;
}
