import type { PreflightCheck } from './preflight-check.ts';

/** The installed release's manifest and who signed it (what status shows as the signer). */
export const installedReleaseCheck: PreflightCheck = {
  id: 'installed-release',
  title: 'installed release',
  appliesTo: ['status'],
  run({ installation }) {
    const { release } = installation;
    if (!installation.present) return { status: 'skip', detail: 'no installation' };
    if (release.manifest && release.signer) {
      return {
        status: 'pass',
        detail:
          `${release.manifest.version}, signed by key ` +
          `${release.signer.keyId}${release.signer.vendor ? ' (vendor)' : ' (configured key)'}`,
      };
    }
    return {
      status: 'warn',
      detail: release.problem ?? 'unknown',
      hint: 'The next upgrade or restore writes it again.',
    };
  },
};
