import path from 'node:path';
import { defineCommand, OperatorError } from '@service/cli-kit';
import {
  LicenseError,
  assertLicenseCurrent,
  buildTrustedKeys,
  describeLicense,
  verifyLicense,
  type SignedLicense,
} from '../license-api.ts';
import type { LicenseContext } from '../license-context.ts';
import { readInputFile } from '../read-input-file.ts';

export const verifyCommand = defineCommand<LicenseContext, { file: string; trustedKey: string[] }>({
  name: 'verify',
  summary:
    'Checks a licence file against the built-in vendor key and any --trusted-key; fails when it is invalid or expired.',
  arguments: [{ name: 'file', description: 'licence file to check' }],
  options: [
    {
      flags: '--trusted-key <base64>',
      repeatable: true,
      description: 'extra public key to trust (the line in a .pub file from keygen); repeatable',
    },
  ],
  examples: [
    'npm run license -- verify acme.license',
    'npm run license -- verify acme.license --trusted-key "$(cat ~/licence-keys/license-signing.pub)"',
  ],
  async run(ctx, input) {
    const file = path.resolve(ctx.cwd, input.file);
    const text = await readInputFile(file, 'licence file', 'Pass the path of the licence file to check.');
    const now = ctx.now();
    const license = verifyWithToolHint(text, input.trustedKey, now);
    ctx.out(`${file}: licence ${license.id}, signed by key ${license.keyId}`);
    ctx.out(describeLicense(license, now));
    assertLicenseCurrent(license, now);
  },
});

// Why a different hint: the service's hint names LICENSE_TRUSTED_KEYS, but here the way to
// trust another key is --trusted-key.
function verifyWithToolHint(text: string, extraKeys: string[], now: Date): SignedLicense {
  try {
    return verifyLicense(text, { trustedKeys: buildTrustedKeys(extraKeys), now });
  } catch (err) {
    if (err instanceof LicenseError && err.reason === 'signature_mismatch') {
      throw new OperatorError(err.message, {
        hint:
          'Check the file was not edited; if it was signed with your own key, pass that key ' +
          'with --trusted-key "$(cat license-signing.pub)".',
        cause: err,
      });
    }
    throw err;
  }
}
