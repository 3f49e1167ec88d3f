import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import {
  keyIdOf,
  LicenseError,
  parsePublicKey,
  parseSigningKey,
  VENDOR_PUBLIC_KEYS,
  type TrustedKey,
} from '@service/auth';
import { ReleaseKitError } from './release-kit-error.ts';

// Package signatures use the same Ed25519 keys, key ids and key files as licences (the
// primitives live in @service/auth): `npm run license -- keygen` makes a key for either.

export const SIGNATURE_FORMAT = 'service-release-signature-v1';
const ED25519_SIGNATURE_BYTES = 64;
const MAX_SIGNATURE_FILE_BYTES = 4096;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** What a valid signature tells: which trusted key made it. */
export interface ReleaseSigner {
  keyId: string;
  /** True for a key built into this release (the vendor's), false for one added by configuration. */
  vendor: boolean;
}

/**
 * The signed message is the format name, the file name and the file's bytes. Why not the bytes
 * alone: the vendor key also signs licences, and a signature must count for one file of a
 * package only, never for a licence, nor for the other signed file.
 */
function signedMessage(fileName: string, bytes: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${SIGNATURE_FORMAT}\n${fileName}\n`, 'utf8'), bytes]);
}

/** The text of `<fileName>.sig`: JSON with the format, the file name, the key id and the signature. */
export function signReleaseFile(fileName: string, bytes: Uint8Array, privateKey: KeyObject): string {
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
    throw new ReleaseKitError(
      'invalid_key',
      `the signing key must be an Ed25519 private key, got a ` +
        `${privateKey.asymmetricKeyType ?? 'unknown'} ${privateKey.type} key`,
      {
        hint: 'Make one with `npm run license -- keygen --out <dir>`, or use the vendor key.',
      },
    );
  }
  const envelope = {
    format: SIGNATURE_FORMAT,
    file: fileName,
    keyId: keyIdOf(createPublicKey(privateKey)),
    signature: sign(null, signedMessage(fileName, bytes), privateKey).toString('base64url'),
  };
  return `${JSON.stringify(envelope, null, 2)}\n`;
}

/** Reads an Ed25519 private key in PEM (as `npm run license -- keygen` writes it); `source` names it in messages. */
export function readReleaseSigningKey(pem: string, source: string): KeyObject {
  try {
    return parseSigningKey(pem, source);
  } catch (err) {
    if (err instanceof LicenseError)
      throw new ReleaseKitError('invalid_key', err.message, {
        hint: 'Pass the PEM private key written by `npm run license -- keygen`.',
        cause: err,
      });
    throw err;
  }
}

/**
 * The keys a package may be signed with: the vendor's, built in, plus extra public keys (base64
 * SPKI DER, as in a `.pub` file) from the installer's own configuration, for test setups.
 * `source` names where the extras came from, for messages.
 */
export function releaseTrustedKeys(extraBase64: readonly string[], source: string): TrustedKey[] {
  const keys = [...VENDOR_PUBLIC_KEYS];
  extraBase64.forEach((entry, i) => {
    if (entry.trim() === '') return;
    let key: TrustedKey;
    try {
      key = parsePublicKey(entry);
    } catch (err) {
      throw new ReleaseKitError(
        'invalid_key',
        `${source} entry ${i + 1} is not an Ed25519 public key: ${(err as Error).message}`,
        {
          hint:
            `Give the single line of a .pub file written by \`npm run license -- keygen\`, or ` +
            `remove the entry from ${source}.`,
          cause: err,
        },
      );
    }
    if (!keys.some((k) => k.keyId === key.keyId)) keys.push(key);
  });
  return keys;
}

export function isVendorKey(keyId: string): boolean {
  return VENDOR_PUBLIC_KEYS.some((k) => k.keyId === keyId);
}

/**
 * Checks `<fileName>.sig` over the file's bytes. `signatureText` null means the signature file is
 * missing. Throws ReleaseKitError: signature_missing, signature_malformed, signature_unknown_key
 * (made with a key not trusted here) or signature_mismatch (a trusted key, but the file changed).
 */
export function verifyReleaseFile(
  fileName: string,
  bytes: Uint8Array,
  signatureText: string | null,
  trustedKeys: readonly TrustedKey[],
): ReleaseSigner {
  const refetch = 'Get the package and its .sha256 file again from the vendor and check it with `sha256sum -c`.';
  if (signatureText === null) {
    throw new ReleaseKitError('signature_missing', `the package is not signed: ${fileName}.sig is missing`, {
      hint: `Use only packages signed by the vendor. ${refetch}`,
    });
  }
  if (signatureText.length > MAX_SIGNATURE_FILE_BYTES)
    throw new ReleaseKitError(
      'signature_malformed',
      `${fileName}.sig is larger than ${MAX_SIGNATURE_FILE_BYTES} bytes`,
      { hint: refetch },
    );
  let envelope: Record<string, unknown>;
  try {
    const parsed = JSON.parse(signatureText) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    envelope = parsed as Record<string, unknown>;
  } catch (cause) {
    throw new ReleaseKitError('signature_malformed', `${fileName}.sig is not a signature file (JSON object expected)`, {
      hint: refetch,
      cause,
    });
  }
  if (envelope.format !== SIGNATURE_FORMAT) {
    throw new ReleaseKitError(
      'signature_malformed',
      `${fileName}.sig has the format ${JSON.stringify(envelope.format)}; this installer reads ${SIGNATURE_FORMAT}`,
      { hint: refetch },
    );
  }
  if (envelope.file !== fileName) {
    throw new ReleaseKitError(
      'signature_malformed',
      `${fileName}.sig is the signature of ${JSON.stringify(envelope.file)}, not of ${fileName}`,
      { hint: refetch },
    );
  }
  const claimedKeyId = typeof envelope.keyId === 'string' ? envelope.keyId : '';
  const signature =
    typeof envelope.signature === 'string' && BASE64URL.test(envelope.signature)
      ? Buffer.from(envelope.signature, 'base64url')
      : null;
  if (signature === null || signature.length !== ED25519_SIGNATURE_BYTES || claimedKeyId === '') {
    throw new ReleaseKitError('signature_malformed', `${fileName}.sig does not hold an Ed25519 signature and key id`, {
      hint: refetch,
    });
  }
  // Why try every trusted key and not just the named one: keyId is not signed; it only orders the
  // attempts and explains a failure. The signature alone decides.
  const message = signedMessage(fileName, bytes);
  const ordered = [...trustedKeys].sort((a, b) => Number(b.keyId === claimedKeyId) - Number(a.keyId === claimedKeyId));
  for (const key of ordered) {
    if (verify(null, message, key.publicKey, signature)) return { keyId: key.keyId, vendor: isVendorKey(key.keyId) };
  }
  const trusted = trustedKeys.map((k) => k.keyId).join(', ') || 'none';
  if (!trustedKeys.some((k) => k.keyId === claimedKeyId)) {
    throw new ReleaseKitError(
      'signature_unknown_key',
      `${fileName} is signed with key ${claimedKeyId}, which this installer does not trust (trusted keys: ${trusted})`,
      {
        hint: `Use a package signed by the vendor. ${refetch}`,
      },
    );
  }
  throw new ReleaseKitError(
    'signature_mismatch',
    `${fileName} does not match its signature by key ${claimedKeyId}: the file was changed after signing`,
    {
      hint: `Do not use this package. ${refetch}`,
    },
  );
}
