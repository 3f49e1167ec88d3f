import type { PreflightCheck } from './preflight-check.ts';
import { formatBytes } from '../ui/human-units.ts';

/** Enough free space where images are loaded, files staged and backups written. */
export const diskSpaceCheck: PreflightCheck = {
  id: 'disk-space',
  title: 'free disk space',
  appliesTo: ['status', 'install', 'upgrade', 'backup', 'restore'],
  run({ disks }) {
    const short = disks.filter((d) => d.freeBytes < d.neededBytes);
    if (short.length > 0) {
      const d = short[0]!;
      return {
        status: 'fail',
        detail: `${formatBytes(d.freeBytes)} free on ${d.dir}, ${formatBytes(d.neededBytes)} needed for ${d.purpose}`,
        hint:
          `Free ${formatBytes(d.neededBytes - d.freeBytes)} on ${d.dir} (old backups can be moved ` +
          `elsewhere), then run the command again.`,
      };
    }
    return {
      status: 'pass',
      detail: disks.map((d) => `${formatBytes(d.freeBytes)} free on ${d.dir}`).join(', ') || 'not measured',
    };
  },
};
