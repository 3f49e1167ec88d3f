import type { PreflightCheck } from './preflight-check.ts';

/**
 * Every file of the package matches the signed SHA256SUMS: none changed, missing or unlisted; the manifest is valid and
 * names present images.
 */
export const packageFilesCheck: PreflightCheck = {
  id: 'package-files',
  title: 'package files',
  appliesTo: ['install', 'upgrade', 'restore'],
  run({ package: pkg }) {
    if (!pkg) return { status: 'skip', detail: 'no package' };
    if (pkg.verified) {
      const m = pkg.verified.manifest;
      return {
        status: 'pass',
        detail: `every file matches SHA256SUMS; version ${m.version}, ${m.images.length} images`,
      };
    }
    if (!pkg.error) return { status: 'skip', detail: 'not checked' };
    if (pkg.error.code.startsWith('signature_') || pkg.error.code === 'invalid_key')
      return { status: 'skip', detail: 'not checked: the signature failed' };
    return { status: 'fail', detail: pkg.error.message, hint: pkg.error.hint };
  },
};
