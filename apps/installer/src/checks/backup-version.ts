import { packageFileName } from '@service/release-kit';
import type { PreflightCheck } from './preflight-check.ts';

/** A backup is restored only by the package of the version it was taken on. */
export const backupVersionCheck: PreflightCheck = {
  id: 'backup-version',
  title: 'backup version',
  appliesTo: ['restore'],
  run({ backup, package: pkg }) {
    if (!backup) return { status: 'skip', detail: 'no backup named' };
    if (!backup.manifest)
      return {
        status: 'fail',
        detail: backup.error ?? `${backup.file} cannot be read`,
        hint: 'Name a backup written by `install.sh backup`.',
      };
    const version = backup.manifest.version;
    if (!pkg?.verified) return { status: 'skip', detail: `backup of ${version}; the package was not verified` };
    if (version !== pkg.verified.manifest.version) {
      return {
        status: 'fail',
        detail: `${backup.file} was taken on ${version}; this package is ${pkg.verified.manifest.version}`,
        hint: `Run the restore from the directory of ${packageFileName(version)}.`,
      };
    }
    return { status: 'pass', detail: `taken on ${version} at ${backup.manifest.createdAt}` };
  },
};
