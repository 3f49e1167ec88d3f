import type { PreflightCheck } from './preflight-check.ts';

const SIGNATURE_CODES = [
  'signature_missing',
  'signature_malformed',
  'signature_unknown_key',
  'signature_mismatch',
  'invalid_key',
];

/** Signature first: a package not signed by a trusted key is refused before any of its files is used. */
export const packageSignatureCheck: PreflightCheck = {
  id: 'package-signature',
  title: 'package signature',
  appliesTo: ['install', 'upgrade', 'restore'],
  run({ package: pkg }) {
    if (!pkg) return { status: 'skip', detail: 'no package' };
    if (pkg.verified) {
      const { signer } = pkg.verified;
      return {
        status: 'pass',
        detail:
          `SHA256SUMS and manifest.json signed by key ` +
          `${signer.keyId}${signer.vendor ? ' (vendor)' : ' (configured in SERVICE_INSTALLER_TRUSTED_KEYS, not the vendor key)'}`,
      };
    }
    if (pkg.error && SIGNATURE_CODES.includes(pkg.error.code))
      return { status: 'fail', detail: pkg.error.message, hint: pkg.error.hint };
    // Why skip: without SHA256SUMS or manifest.json there was nothing to check the signature of; package-files says so.
    if (pkg.error && /is not a release package/.test(pkg.error.message))
      return { status: 'skip', detail: 'nothing signed found' };
    return { status: 'pass', detail: 'signed by a trusted key' };
  },
};
