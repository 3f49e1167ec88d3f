import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { defineCommand, OperatorError } from '@service/cli-kit';
import { generateLicenseKeyPair } from '../license-api.ts';
import type { LicenseContext } from '../license-context.ts';
import { writeNewFile } from '../write-new-file.ts';

export const PRIVATE_KEY_FILE = 'license-signing.key.pem';
export const PUBLIC_KEY_FILE = 'license-signing.pub';

export const keygenCommand = defineCommand<LicenseContext, { out: string }>({
  name: 'keygen',
  summary:
    `Creates an Ed25519 signing key pair: ${PRIVATE_KEY_FILE} (private, mode 0600) ` +
    `and ${PUBLIC_KEY_FILE} (base64 SPKI DER).`,
  description: 'The same kind of key signs licences and release packages (`npm run release -- X.Y.Z --sign-key`).',
  options: [
    {
      flags: '--out <dir>',
      required: true,
      description: 'directory for the two key files; created if missing, never overwritten',
    },
  ],
  examples: ['npm run license -- keygen --out ~/licence-keys'],
  async run(ctx, input) {
    const dir = path.resolve(ctx.cwd, input.out);
    const privateFile = path.join(dir, PRIVATE_KEY_FILE);
    const publicFile = path.join(dir, PUBLIC_KEY_FILE);
    // Why check both before writing either: a half-replaced pair (new public, old private) signs
    // licences that no longer match the key handed out.
    for (const file of [privateFile, publicFile]) {
      if (existsSync(file)) {
        throw new OperatorError(`${file} already exists; keygen never overwrites a key`, {
          hint: 'Choose another --out directory, or move the old key pair away first.',
        });
      }
    }
    const pair = generateLicenseKeyPair();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeNewFile(privateFile, pair.privateKeyPem, 0o600);
    await writeNewFile(publicFile, `${pair.publicKeyBase64}\n`, 0o644);
    ctx.out(`Wrote ${privateFile} (private: keep it secret and out of every repository)`);
    ctx.out(`Wrote ${publicFile} (public: add it to LICENSE_TRUSTED_KEYS, or build it in as the vendor key)`);
    ctx.out(`Key id: ${pair.keyId}`);
  },
});
