import { verify } from 'node:crypto';
import { LICENSE_FORMAT, type SignedLicense } from './license.ts';
import { LicenseError } from './license-error.ts';
import { isLicenseExpired } from './license-expiry.ts';
import { parseLicensePayload } from './parse-license-payload.ts';
import type { TrustedKey } from './trusted-key.ts';

export interface VerifyLicenseOptions {
  /** Usually buildTrustedKeys(config.licenseTrustedKeys): the vendor keys plus configured extras. */
  trustedKeys: readonly TrustedKey[];
  now?: Date;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const ED25519_SIGNATURE_BYTES = 64;
const PASTE_HINT = 'Install the licence file exactly as the vendor sent it.';

/**
 * Reads a licence file (format service-license-v1) and checks its Ed25519 signature over the
 * exact embedded payload bytes. Throws LicenseError for anything that is not a genuine licence.
 *
 * Why an expired licence is returned (with `expired: true`) instead of thrown: it is still the
 * genuine licence, and the service must be able to say whose licence expired and when in status
 * output. Gate features with licenseAllows, which checks expiry at the time of the request;
 * assertLicenseCurrent throws for callers that must refuse an expired licence.
 */
export function verifyLicense(text: string, options: VerifyLicenseOptions): SignedLicense {
  const now = options.now ?? new Date();
  // Why strip a byte-order mark: editors on Windows add one when an operator pastes the file.
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') {
    throw new LicenseError('empty', 'licence file is empty', { hint: PASTE_HINT });
  }

  let envelope: unknown;
  try {
    envelope = JSON.parse(trimmed);
  } catch (cause) {
    throw new LicenseError('invalid_json', `licence file is not valid JSON (${(cause as Error).message})`, {
      hint: PASTE_HINT,
      cause,
    });
  }
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    throw new LicenseError(
      'malformed',
      'licence file must be a JSON object with "format", "payload", "signature" and "keyId"',
      { hint: PASTE_HINT },
    );
  }
  const fields = envelope as Record<string, unknown>;

  if (typeof fields.format !== 'string') {
    throw new LicenseError('malformed', 'licence file has no "format" field', { hint: PASTE_HINT });
  }
  if (fields.format !== LICENSE_FORMAT) {
    throw new LicenseError(
      'unsupported_format',
      `licence format "${fields.format}" is not supported; this release reads ${LICENSE_FORMAT}`,
      {
        hint: `Upgrade the service, or ask the vendor for a ${LICENSE_FORMAT} licence.`,
      },
    );
  }
  const payloadBytes = decodeField(fields, 'payload');
  const signature = decodeField(fields, 'signature');
  const claimedKeyId = fields.keyId;
  if (typeof claimedKeyId !== 'string' || claimedKeyId === '') {
    throw new LicenseError('malformed', 'licence file field "keyId" must be a non-empty string', { hint: PASTE_HINT });
  }

  const signer = findSigner(payloadBytes, signature, claimedKeyId, options.trustedKeys);
  const payload = parseLicensePayload(decodePayloadJson(payloadBytes));
  return { ...payload, kind: 'signed', keyId: signer.keyId, expired: isLicenseExpired(payload, now) };
}

function decodeField(fields: Record<string, unknown>, name: 'payload' | 'signature'): Buffer {
  const value = fields[name];
  // Why check the alphabet: Buffer.from(…, 'base64url') silently skips characters it does not know.
  if (typeof value !== 'string' || !BASE64URL.test(value)) {
    throw new LicenseError('malformed', `licence file field "${name}" must be a base64url string`, {
      hint: PASTE_HINT,
    });
  }
  return Buffer.from(value, 'base64url');
}

// Why try every trusted key and not just the one named by keyId: keyId is not signed, so it is
// only a hint for ordering and for the error message; the signature alone decides.
function findSigner(
  payload: Buffer,
  signature: Buffer,
  claimedKeyId: string,
  trustedKeys: readonly TrustedKey[],
): TrustedKey {
  const ordered = [...trustedKeys].sort((a, b) => Number(b.keyId === claimedKeyId) - Number(a.keyId === claimedKeyId));
  if (signature.length === ED25519_SIGNATURE_BYTES) {
    for (const key of ordered) {
      if (verify(null, payload, key.publicKey, signature)) return key;
    }
  }
  const trustedIds = trustedKeys.map((k) => k.keyId).join(', ') || 'none';
  const knownKey = trustedKeys.some((k) => k.keyId === claimedKeyId);
  throw new LicenseError(
    'signature_mismatch',
    `licence signature does not match any trusted key (the licence names key ` +
      `${claimedKeyId}; trusted keys: ${trustedIds})`,
    {
      hint: knownKey
        ? `The licence was changed after signing. ${PASTE_HINT}`
        : 'Ask the vendor for a licence signed with a trusted key, or add its public key to LICENSE_TRUSTED_KEYS.',
    },
  );
}

function decodePayloadJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (cause) {
    throw new LicenseError('invalid_payload', 'licence payload is not UTF-8 JSON', {
      hint: 'Ask the vendor to issue the licence again.',
      cause,
    });
  }
}
