import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { LicenseError } from './license-error.ts';
import { keyIdOf } from './trusted-key.ts';

export interface LicenseKeyPair {
  /** Base64 SPKI DER: what goes into vendor-public-key.ts or LICENSE_TRUSTED_KEYS. */
  publicKeyBase64: string;
  /** PKCS#8 PEM: what `npm run license -- sign --key` reads. Keep it out of every repository. */
  privateKeyPem: string;
  keyId: string;
}

/** A fresh Ed25519 key pair for signing licences. */
export function generateLicenseKeyPair(): LicenseKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKeyBase64: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    keyId: keyIdOf(publicKey),
  };
}

/** Reads a PEM private key and checks it is Ed25519; `source` (a file name) goes into messages. */
export function parseSigningKey(pem: string, source = 'licence signing key'): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (cause) {
    throw new LicenseError('invalid_key', `${source} is not a PEM private key`, {
      hint: 'Use the license-signing.key.pem written by `npm run license -- keygen`.',
      cause,
    });
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new LicenseError('invalid_key', `${source} is a ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`, {
      hint: 'Use the license-signing.key.pem written by `npm run license -- keygen`.',
    });
  }
  return key;
}
