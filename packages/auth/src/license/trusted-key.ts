import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { LicenseError } from './license-error.ts';

/** A public key allowed to sign licences. keyId is derived from the key, never chosen. */
export interface TrustedKey {
  keyId: string;
  publicKey: KeyObject;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Reads one Ed25519 public key given as base64 SPKI DER (the `.pub` file written by
 * `npm run license -- keygen`, and each entry of LICENSE_TRUSTED_KEYS).
 */
export function parsePublicKey(base64SpkiDer: string): TrustedKey {
  const text = base64SpkiDer.trim();
  const shown = text.length > 16 ? `${text.slice(0, 16)}…` : text;
  if (!BASE64.test(text)) {
    throw new LicenseError('invalid_key', `licence public key "${shown}" is not base64`, {
      hint: 'Copy the single line of the .pub file written by `npm run license -- keygen`.',
    });
  }
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
  } catch (cause) {
    throw new LicenseError('invalid_key', `licence public key "${shown}" is not a public key in SPKI DER form`, {
      hint: 'Copy the single line of the .pub file written by `npm run license -- keygen`.',
      cause,
    });
  }
  if (publicKey.asymmetricKeyType !== 'ed25519') {
    throw new LicenseError(
      'invalid_key',
      `licence public key "${shown}" is a ${publicKey.asymmetricKeyType ?? 'unknown'} key, not Ed25519`,
      {
        hint: 'Licences are signed with Ed25519 keys made by `npm run license -- keygen`.',
      },
    );
  }
  return { keyId: keyIdOf(publicKey), publicKey };
}

/** First 8 hex characters of the SHA-256 of the SPKI DER: short enough to read, stable per key. */
export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return createHash('sha256').update(der).digest('hex').slice(0, 8);
}
