import { sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LicenseError, buildTrustedKeys, signLicense, verifyLicense, VENDOR_PUBLIC_KEYS } from './index.ts';
import { FIXED_NOW, licensePayload, testSigningKey } from './testing/license-fixtures.ts';

const signer = testSigningKey();
const other = testSigningKey();
const options = { trustedKeys: [signer.trusted], now: FIXED_NOW };

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(LicenseError);
    return (err as LicenseError).reason;
  }
  throw new Error('expected a LicenseError');
}

function envelope(text: string): Record<'format' | 'keyId' | 'payload' | 'signature', string> {
  return JSON.parse(text) as Record<'format' | 'keyId' | 'payload' | 'signature', string>;
}

describe('verifyLicense', () => {
  it('returns the signed payload with kind, keyId and expired', () => {
    const text = signLicense(licensePayload(), signer.privateKey);
    expect(verifyLicense(text, options)).toEqual({
      ...licensePayload(),
      kind: 'signed',
      keyId: signer.trusted.keyId,
      expired: false,
    });
  });

  it('writes the service-license-v1 envelope with the signing key id', () => {
    const e = envelope(signLicense(licensePayload(), signer.privateKey));
    expect(Object.keys(e).sort()).toEqual(['format', 'keyId', 'payload', 'signature']);
    expect(e.format).toBe('service-license-v1');
    expect(e.keyId).toBe(signer.trusted.keyId);
    expect(JSON.parse(Buffer.from(e.payload, 'base64url').toString('utf8'))).toEqual(licensePayload());
  });

  it('verifies the exact payload bytes, whatever their JSON layout', () => {
    // A payload serialised by another tool (other key order, spaces) must still verify.
    const bytes = Buffer.from(JSON.stringify(licensePayload(), null, 4), 'utf8');
    const text = JSON.stringify({
      format: 'service-license-v1',
      payload: bytes.toString('base64url'),
      signature: sign(null, bytes, signer.privateKey).toString('base64url'),
      keyId: signer.trusted.keyId,
    });
    expect(verifyLicense(text, options).holder).toBe('Acme Ltd');
  });

  it('rejects a tampered payload as changed after signing', () => {
    const e = envelope(signLicense(licensePayload(), signer.privateKey));
    const forged = Buffer.from(JSON.stringify(licensePayload({ seats: 1000 })), 'utf8').toString('base64url');
    const text = JSON.stringify({ ...e, payload: forged });
    expect(() => verifyLicense(text, options)).toThrow(/licence signature does not match any trusted key/);
    try {
      verifyLicense(text, options);
    } catch (err) {
      expect((err as LicenseError).reason).toBe('signature_mismatch');
      expect((err as LicenseError).hint).toMatch(/changed after signing/);
    }
  });

  it('rejects a tampered signature', () => {
    const e = envelope(signLicense(licensePayload(), signer.privateKey));
    const sig = Buffer.from(e.signature, 'base64url');
    sig.writeUInt8(sig.readUInt8(10) ^ 0x01, 10);
    expect(reasonOf(() => verifyLicense(JSON.stringify({ ...e, signature: sig.toString('base64url') }), options))).toBe(
      'signature_mismatch',
    );
    expect(reasonOf(() => verifyLicense(JSON.stringify({ ...e, signature: 'AAAA' }), options))).toBe(
      'signature_mismatch',
    );
  });

  it('rejects a licence signed by a key that is not trusted, naming both key ids', () => {
    const text = signLicense(licensePayload(), other.privateKey);
    expect(() => verifyLicense(text, options)).toThrow(
      `licence signature does not match any trusted key (the licence names key ` +
        `${other.trusted.keyId}; trusted keys: ${signer.trusted.keyId})`,
    );
    expect(reasonOf(() => verifyLicense(text, { trustedKeys: VENDOR_PUBLIC_KEYS, now: FIXED_NOW }))).toBe(
      'signature_mismatch',
    );
    expect(reasonOf(() => verifyLicense(text, { trustedKeys: [], now: FIXED_NOW }))).toBe('signature_mismatch');
  });

  it('ignores a keyId that lies: the signature decides and the real signer is reported', () => {
    const e = envelope(signLicense(licensePayload(), signer.privateKey));
    const text = JSON.stringify({ ...e, keyId: other.trusted.keyId });
    expect(verifyLicense(text, { trustedKeys: [other.trusted, signer.trusted], now: FIXED_NOW }).keyId).toBe(
      signer.trusted.keyId,
    );
    expect(reasonOf(() => verifyLicense(text, { trustedKeys: [other.trusted], now: FIXED_NOW }))).toBe(
      'signature_mismatch',
    );
  });

  it('accepts a licence signed by an extra key given as base64 SPKI DER', () => {
    const text = signLicense(licensePayload(), signer.privateKey);
    const base64 = signer.trusted.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    expect(reasonOf(() => verifyLicense(text, { trustedKeys: buildTrustedKeys(), now: FIXED_NOW }))).toBe(
      'signature_mismatch',
    );
    const license = verifyLicense(text, { trustedKeys: buildTrustedKeys([base64]), now: FIXED_NOW });
    expect(license.keyId).toBe(signer.trusted.keyId);
  });

  it('rejects an unknown format, naming it', () => {
    const e = envelope(signLicense(licensePayload(), signer.privateKey));
    const text = JSON.stringify({ ...e, format: 'service-license-v2' });
    expect(() => verifyLicense(text, options)).toThrow(
      'licence format "service-license-v2" is not supported; this release reads service-license-v1',
    );
    expect(reasonOf(() => verifyLicense(text, options))).toBe('unsupported_format');
  });

  it.each([
    ['', 'empty'],
    ['   \n', 'empty'],
    ['not json at all', 'invalid_json'],
    ['{"format":', 'invalid_json'],
    ['-----BEGIN PRIVATE KEY-----', 'invalid_json'],
    ['[]', 'malformed'],
    ['null', 'malformed'],
    ['"service-license-v1"', 'malformed'],
    ['{}', 'malformed'],
    ['{"format":"service-license-v1"}', 'malformed'],
    ['{"format":"service-license-v1","payload":"e30","signature":"a b","keyId":"x"}', 'malformed'],
    ['{"format":"service-license-v1","payload":"e30","signature":"AAAA"}', 'malformed'],
    ['{"format":"service-license-v1","payload":"e30","signature":"AAAA","keyId":"x"}', 'signature_mismatch'],
  ])('rejects garbage %j as %s', (text, reason) => {
    expect(reasonOf(() => verifyLicense(text, options))).toBe(reason);
  });

  it('says the file is not JSON in plain words', () => {
    expect(() => verifyLicense('hello', options)).toThrow(/^licence file is not valid JSON/);
  });

  it('accepts a byte-order mark and surrounding whitespace', () => {
    const text = `\uFEFF\n${signLicense(licensePayload(), signer.privateKey)}\n\n`;
    expect(verifyLicense(text, options).id).toBe(licensePayload().id);
  });

  it('reports a signed but malformed payload by field name', () => {
    const bytes = Buffer.from(JSON.stringify({ ...licensePayload(), seats: 0 }), 'utf8');
    const text = JSON.stringify({
      format: 'service-license-v1',
      payload: bytes.toString('base64url'),
      signature: sign(null, bytes, signer.privateKey).toString('base64url'),
      keyId: signer.trusted.keyId,
    });
    expect(() => verifyLicense(text, options)).toThrow(
      'licence payload field "seats" must be a whole number of at least 1',
    );
  });

  it('returns an expired licence with expired: true instead of throwing', () => {
    const text = signLicense(
      licensePayload({ expiresAt: '2026-01-01T00:00:00.000Z', issuedAt: '2025-01-01T00:00:00.000Z' }),
      signer.privateKey,
    );
    const license = verifyLicense(text, options);
    expect(license.expired).toBe(true);
    expect(verifyLicense(text, { ...options, now: new Date('2025-12-31T23:59:59.999Z') }).expired).toBe(false);
    expect(verifyLicense(text, { ...options, now: new Date('2026-01-01T00:00:00.000Z') }).expired).toBe(true);
  });

  it('keeps unknown features (from a newer release) but drops unknown payload fields', () => {
    const bytes = Buffer.from(
      JSON.stringify({ ...licensePayload({ features: ['api', 'future-thing'] }), note: 'x' }),
      'utf8',
    );
    const text = JSON.stringify({
      format: 'service-license-v1',
      payload: bytes.toString('base64url'),
      signature: sign(null, bytes, signer.privateKey).toString('base64url'),
      keyId: signer.trusted.keyId,
    });
    const license = verifyLicense(text, options);
    expect(license.features).toEqual(['api', 'future-thing']);
    expect(license).not.toHaveProperty('note');
  });
});
