import type { PreflightCheck } from './preflight-check.ts';

/** The installation directory holds an installation (every command but install), or none (install). */
export const installationPresentCheck: PreflightCheck = {
  id: 'installation',
  title: 'installation directory',
  appliesTo: ['status', 'install', 'upgrade', 'backup', 'restore', 'import-globals', 'recover', 'cleanup'],
  run({ command, home, installation }) {
    if (command === 'install') {
      return installation.present
        ? {
            status: 'fail',
            detail: `${home} already holds an installation`,
            hint: `Use \`install.sh upgrade --home ${home}\` from the new package, or choose another --home.`,
          }
        : { status: 'pass', detail: `${home} holds no installation yet` };
    }
    return installation.present
      ? { status: 'pass', detail: home }
      : {
          status: 'fail',
          detail: `${home} holds no installation (compose.yaml and .env are missing)`,
          hint: 'Pass --home <dir> if it is installed elsewhere, or run `install.sh install` from a package.',
        };
  },
};
