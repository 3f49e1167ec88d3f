import type { Knex } from 'knex';
import semver from 'semver';
import type { DatabaseName } from './database-names.ts';

export class VersionGuardError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VersionGuardError';
  }
}

export interface InstallationRecord {
  version: string;
  previousVersion: string | null;
  schemaHeads: Record<DatabaseName, string | null>;
  updatedAt: Date;
}

/** The version recorded in the control plane, or null on a fresh database. */
export async function readInstallation(controlPlane: Knex): Promise<InstallationRecord | null> {
  if (!(await controlPlane.schema.hasTable('installation'))) return null;
  const row = await controlPlane('installation').where({ id: 1 }).first();
  if (!row) return null;
  return {
    version: row.version,
    previousVersion: row.previous_version,
    schemaHeads: row.schema_heads ?? {},
    updatedAt: row.updated_at,
  };
}

/**
 * Refuses to run an older service on data a newer one has already migrated.
 * Runs before any migration, so the older image changes nothing.
 */
export async function assertNotDowngrade(controlPlane: Knex, runningVersion: string): Promise<void> {
  const recorded = await readInstallation(controlPlane);
  if (recorded && semver.valid(recorded.version) && semver.gt(recorded.version, runningVersion)) {
    throw new VersionGuardError(
      `The database was last used by version ${recorded.version}, newer than this ` +
        `service (${runningVersion}); refusing to start. Run ${recorded.version} or ` +
        `newer, or restore the backup taken before the upgrade.`,
    );
  }
}

export async function recordInstallation(
  controlPlane: Knex,
  runningVersion: string,
  schemaHeads: Record<DatabaseName, string | null>,
): Promise<void> {
  const previous = await readInstallation(controlPlane);
  await controlPlane('installation')
    .insert({
      id: 1,
      version: runningVersion,
      previous_version:
        previous && previous.version !== runningVersion ? previous.version : (previous?.previousVersion ?? null),
      schema_heads: JSON.stringify(schemaHeads),
      updated_at: new Date(),
    })
    .onConflict('id')
    .merge();
}
