import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type LicenseError,
  generateLicenseKeyPair,
  parsePublicKey,
  parseSigningKey,
  signLicense,
  verifyLicense,
} from './index.ts';
import { FIXED_NOW, licensePayload, testSigningKey } from './testing/license-fixtures.ts';

describe('signLicense', () => {
  const { privateKey } = testSigningKey();

  it.each([
    [{ id: 'not-a-uuid' }, /"id" must be a UUID/],
    [{ holder: '  ' }, /"holder" must be a non-empty string/],
    [{ edition: 'cloud' as never }, /"edition" must be one of self-hosted, hosted/],
    [{ features: ['API'] }, /"features" must be a list of feature names/],
    [{ seats: 2.5 }, /"seats" must be a whole number/],
    [{ expiresAt: '2027-12-31' }, /"expiresAt" must be an ISO 8601 timestamp/],
    [{ expiresAt: '2025-01-01T00:00:00Z' }, /"expiresAt" \(2025-01-01T00:00:00Z\) must be later than "issuedAt"/],
  ])('refuses to sign a payload with %j', (overrides, message) => {
    expect(() => signLicense(licensePayload(overrides), privateKey)).toThrow(message);
  });

  it('refuses a key that is not an Ed25519 private key', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() => signLicense(licensePayload(), rsa.privateKey)).toThrow(
      /must be an Ed25519 private key, got a rsa private key/,
    );
    expect(() => signLicense(licensePayload(), testSigningKey().trusted.publicKey)).toThrow(/got a ed25519 public key/);
  });
});

describe('generateLicenseKeyPair', () => {
  it('makes a key pair whose halves match and whose key id is the public key id', () => {
    const pair = generateLicenseKeyPair();
    const trusted = parsePublicKey(pair.publicKeyBase64);
    expect(trusted.keyId).toBe(pair.keyId);
    expect(pair.keyId).toMatch(/^[0-9a-f]{8}$/);
    expect(pair.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const text = signLicense(licensePayload(), parseSigningKey(pair.privateKeyPem));
    expect(verifyLicense(text, { trustedKeys: [trusted], now: FIXED_NOW }).keyId).toBe(pair.keyId);
  });
});

describe('parseSigningKey', () => {
  it('names the source when the PEM is not a usable key', () => {
    expect(() => parseSigningKey('nope', '/keys/x.pem')).toThrow('/keys/x.pem is not a PEM private key');
    const rsaPem = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    expect(() => parseSigningKey(rsaPem, '/keys/rsa.pem')).toThrow('/keys/rsa.pem is a rsa key, not Ed25519');
    try {
      parseSigningKey('nope');
    } catch (err) {
      expect((err as LicenseError).reason).toBe('invalid_key');
    }
  });
});
