import type { PreflightCheck } from './preflight-check.ts';

export const BACKUP_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** A backup of the installed version from the last 24 hours: the only way back if the upgrade fails after migrating. */
export const recentBackupCheck: PreflightCheck = {
  id: 'recent-backup',
  title: 'recent backup',
  appliesTo: ['status', 'upgrade'],
  run({ command, now, home, options, installation }) {
    const installed = installation.env?.values.get('SERVICE_VERSION') ?? null;
    if (installed === null) return { status: 'skip', detail: 'the installed version is unknown' };
    const latest = installation.backups.find((b) => b.version === installed);
    const age = latest ? now.getTime() - latest.createdAt.getTime() : null;
    const hint = `Run \`install.sh backup --home ${home}\` first (from this package or the installed one).`;
    if (age !== null && age <= BACKUP_MAX_AGE_MS && age >= -60_000) {
      return { status: 'pass', detail: `${latest!.file} (${Math.round(age / 60_000)} min old)` };
    }
    const detail = latest
      ? `the last backup of ${installed} is ${Math.round(age! / 3_600_000)} h old (${latest.file})`
      : `no backup of ${installed} in ${home}/backups`;
    if (command === 'upgrade' && options.skipBackupCheck)
      return { status: 'warn', detail: `${detail}; skipped (--skip-backup-check)` };
    return {
      status: command === 'status' ? 'warn' : 'fail',
      detail: command === 'upgrade' ? `${detail}; an upgrade needs one from the last 24 hours` : detail,
      hint,
    };
  },
};
