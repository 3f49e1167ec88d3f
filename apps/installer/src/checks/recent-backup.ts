import { formatAge } from '../ui/human-units.ts';
import type { PreflightCheck } from './preflight-check.ts';

export const BACKUP_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Status only: a backup of the installed version from the last 24 hours, the only way back to
 * today's data. (An upgrade takes its own right before it changes anything.)
 */
export const recentBackupCheck: PreflightCheck = {
  id: 'recent-backup',
  title: 'recent backup',
  appliesTo: ['status'],
  run({ now, home, installation }) {
    const installed = installation.env?.values.get('SERVICE_VERSION') ?? null;
    if (installed === null) return { status: 'skip', detail: 'the installed version is unknown' };
    const latest = installation.backups.find((b) => b.version === installed);
    const age = latest ? now.getTime() - latest.createdAt.getTime() : null;
    if (age !== null && age <= BACKUP_MAX_AGE_MS && age >= -60_000)
      return { status: 'pass', detail: `${latest!.file} (${formatAge(age)} old)` };
    return {
      status: 'warn',
      detail: latest
        ? `the last backup of ${installed} is ${formatAge(age!)} old (${latest.file})`
        : `no backup of ${installed} in ${home}/backups`,
      hint: `Run \`install.sh backup --home ${home}\` (and copy the backup off the machine).`,
    };
  },
};
