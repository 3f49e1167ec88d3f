import { packageFileName } from '@service/release-kit';
import { formatAge } from '../ui/human-units.ts';

/** "backups/service-1.2.0-20261123T100000Z.tar.gz (taken 4 min ago, at 2026-11-23T10:00:00.000Z)". */
export function describeBackup(backup: { file: string; createdAt: string | Date }, now: Date): string {
  const at = new Date(backup.createdAt);
  return `${backup.file} (taken ${formatAge(now.getTime() - at.getTime())} ago, at ${at.toISOString()})`;
}

/**
 * What to run after an upgrade that changed the databases and then failed: `recover` restores
 * the backup taken right before it. Every such message names that backup and how old it is, so
 * nobody restores a stale one unawares.
 */
export function recoverAfterUpgradeHint(
  home: string,
  from: string,
  backup: { file: string; createdAt: string | Date } | null,
  now: Date,
): string {
  if (backup === null)
    return (
      `No backup was taken before this upgrade (--skip-backup). Run \`./install.sh recover --home ${home} ` +
      `--backup <file>\` with the newest backup of ${from} in ${home}/backups/; what was written after it is lost`
    );
  return (
    `Run \`./install.sh recover --home ${home}\`: it restores the backup taken before the upgrade, ` +
    `${describeBackup(backup, now)}, and starts ${from} again`
  );
}

/** The manual way back to `version`: restore `backup` with that version's package. */
export function restoreCommand(home: string, version: string, backup: { file: string } | null): string {
  return (
    `from the directory of ${packageFileName(version)} run \`./install.sh restore ` +
    `${backup?.file ?? `${home}/backups/service-${version}-<time>.tar.gz`} --home ${home}\``
  );
}
