import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  LicenseError,
  VENDOR_PUBLIC_KEY_BASE64,
  VENDOR_PUBLIC_KEYS,
  buildTrustedKeys,
  parsePublicKey,
} from './index.ts';

describe('parsePublicKey', () => {
  it('derives the key id from the first 8 hex characters of the SHA-256 of the SPKI DER', () => {
    const expected = createHash('sha256')
      .update(Buffer.from(VENDOR_PUBLIC_KEY_BASE64, 'base64'))
      .digest('hex')
      .slice(0, 8);
    expect(parsePublicKey(VENDOR_PUBLIC_KEY_BASE64).keyId).toBe(expected);
    expect(parsePublicKey(`  ${VENDOR_PUBLIC_KEY_BASE64}\n`).keyId).toBe(expected);
  });

  it('has the built-in vendor key', () => {
    expect(VENDOR_PUBLIC_KEYS.map((k) => k.keyId)).toEqual(['a006e716']);
    expect(VENDOR_PUBLIC_KEYS[0]!.publicKey.asymmetricKeyType).toBe('ed25519');
  });

  it.each([
    ['not base64!', /is not base64/],
    ['', /is not base64/],
    ['aGVsbG8gd29ybGQ=', /"aGVsbG8gd29ybGQ=" is not a public key in SPKI DER form/],
  ])('rejects %j', (input, message) => {
    expect(() => parsePublicKey(input)).toThrow(message);
    expect(() => parsePublicKey(input)).toThrow(LicenseError);
  });

  it('rejects a key that is not Ed25519', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .publicKey.export({ format: 'der', type: 'spki' })
      .toString('base64');
    expect(() => parsePublicKey(rsa)).toThrow(/is a rsa key, not Ed25519/);
  });
});

describe('buildTrustedKeys', () => {
  it('adds configured keys after the vendor keys, skipping blanks and duplicates', () => {
    const extra = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const keys = buildTrustedKeys([extra, '', VENDOR_PUBLIC_KEY_BASE64, extra]);
    expect(keys.map((k) => k.keyId)).toEqual(['a006e716', parsePublicKey(extra).keyId]);
  });

  it('names the bad entry', () => {
    expect(() => buildTrustedKeys(['zzz$'])).toThrow('licence public key "zzz$" is not base64');
  });
});
