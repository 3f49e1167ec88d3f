import { createPublicKey, sign, type KeyObject } from 'node:crypto';
import { LICENSE_FORMAT, type LicensePayload } from './license.ts';
import { LicenseError } from './license-error.ts';
import { parseLicensePayload } from './parse-license-payload.ts';
import { keyIdOf } from './trusted-key.ts';

/**
 * Signs a licence payload and returns the licence file text. The payload is validated first so
 * the vendor cannot issue a licence the service would reject. The signature covers the exact
 * payload bytes that are embedded (base64url), so verifying never depends on re-serialising JSON.
 */
export function signLicense(payload: LicensePayload, privateKey: KeyObject): string {
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
    throw new LicenseError(
      'invalid_key',
      `licence signing key must be an Ed25519 private key, got a ` +
        `${privateKey.asymmetricKeyType ?? 'unknown'} ${privateKey.type} key`,
      {
        hint: 'Use the license-signing.key.pem written by `npm run license -- keygen`.',
      },
    );
  }
  const bytes = Buffer.from(JSON.stringify(parseLicensePayload(payload)), 'utf8');
  const envelope = {
    format: LICENSE_FORMAT,
    payload: bytes.toString('base64url'),
    signature: sign(null, bytes, privateKey).toString('base64url'),
    keyId: keyIdOf(createPublicKey(privateKey)),
  };
  return `${JSON.stringify(envelope, null, 2)}\n`;
}
