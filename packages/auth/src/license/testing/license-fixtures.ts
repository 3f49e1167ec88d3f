// Test-only builders for licences; not exported from the package.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { LicensePayload, SignedLicense } from '../license.ts';
import { keyIdOf, type TrustedKey } from '../trusted-key.ts';

export const FIXED_NOW = new Date('2026-11-21T12:00:00.000Z');

export function licensePayload(overrides: Partial<LicensePayload> = {}): LicensePayload {
  return {
    id: '6f1c2a9e-3b4d-4c5e-8f70-112233445566',
    holder: 'Acme Ltd',
    edition: 'self-hosted',
    features: ['api', 'docx-export'],
    seats: 10,
    issuedAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2027-12-31T23:59:59.999Z',
    ...overrides,
  };
}

export function signedLicense(overrides: Partial<SignedLicense> = {}): SignedLicense {
  return { ...licensePayload(), kind: 'signed', keyId: 'a1b2c3d4', expired: false, ...overrides };
}

export interface TestSigningKey {
  privateKey: KeyObject;
  trusted: TrustedKey;
}

/** A throwaway Ed25519 key pair, so tests never need the vendor's private key. */
export function testSigningKey(): TestSigningKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { privateKey, trusted: { keyId: keyIdOf(publicKey), publicKey } };
}
