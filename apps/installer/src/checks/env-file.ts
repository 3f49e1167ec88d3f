import { isReleaseVersion } from '@service/release-kit';
import type { PreflightCheck } from './preflight-check.ts';

/** `.env` can be read, and names the installed version. */
export const envFileCheck: PreflightCheck = {
  id: 'env-file',
  title: '.env',
  appliesTo: ['status', 'upgrade', 'backup', 'restore', 'import-globals', 'cleanup'],
  run({ home, installation }) {
    const env = installation.env;
    if (!installation.present) return { status: 'skip', detail: 'no installation' };
    if (!env)
      return {
        status: 'fail',
        detail: `${home}/.env cannot be read`,
        hint: 'Check that the file exists and is readable by root.',
      };
    if (env.problems.length > 0) {
      const p = env.problems[0]!;
      return {
        status: 'fail',
        detail:
          `${home}/.env line ${p.line} ` +
          `${p.message}${env.problems.length > 1 ? ` (and ${env.problems.length - 1} more lines)` : ''}`,
        hint: 'Correct the line (KEY=value), then run the command again.',
      };
    }
    const version = env.values.get('SERVICE_VERSION');
    if (!version)
      return {
        status: 'fail',
        detail: `${home}/.env has no SERVICE_VERSION`,
        hint: 'Set SERVICE_VERSION to the installed version (see manifest.json in the installation directory).',
      };
    if (!isReleaseVersion(version))
      return {
        status: 'fail',
        detail: `${home}/.env has SERVICE_VERSION=${version}, not a version`,
        hint: 'Set SERVICE_VERSION to the installed version (see manifest.json in the installation directory).',
      };
    return { status: 'pass', detail: `SERVICE_VERSION=${version}` };
  },
};
