import { sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { VENDOR_PUBLIC_KEYS } from '@service/auth';
import { releaseTrustedKeys, signReleaseFile, verifyReleaseFile } from './release-signature.ts';
import { createTestSigningKey } from './testing/test-package.ts';

const sums = Buffer.from(`${'a'.repeat(64)}  install.sh\n`);

describe('package signatures', () => {
  const key = createTestSigningKey();
  const other = createTestSigningKey();
  const trusted = releaseTrustedKeys([key.publicBase64], 'SERVICE_INSTALLER_TRUSTED_KEYS');

  it('verify with the key that signed, and name it', () => {
    const signature = signReleaseFile('SHA256SUMS', sums, key.privateKey);
    expect(JSON.parse(signature)).toMatchObject({ format: 'service-release-signature-v1', file: 'SHA256SUMS' });
    const signer = verifyReleaseFile('SHA256SUMS', sums, signature, trusted);
    expect(signer.vendor).toBe(false);
    expect(signer.keyId).toBe(trusted[trusted.length - 1]!.keyId);
  });

  it('trust the vendor key by default and configured keys in addition', () => {
    expect(releaseTrustedKeys([], 'x').map((k) => k.keyId)).toEqual(VENDOR_PUBLIC_KEYS.map((k) => k.keyId));
    expect(trusted).toHaveLength(VENDOR_PUBLIC_KEYS.length + 1);
    expect(() => releaseTrustedKeys(['not a key'], 'SERVICE_INSTALLER_TRUSTED_KEYS')).toThrow(
      'SERVICE_INSTALLER_TRUSTED_KEYS entry 1 is not an Ed25519 public key',
    );
  });

  it('refuse a missing signature', () => {
    expect(() => verifyReleaseFile('SHA256SUMS', sums, null, trusted)).toThrow(
      'the package is not signed: SHA256SUMS.sig is missing',
    );
  });

  it('refuse a changed file', () => {
    const signature = signReleaseFile('SHA256SUMS', sums, key.privateKey);
    const changed = Buffer.from(sums.toString().replace('a', 'b'));
    expect(() => verifyReleaseFile('SHA256SUMS', changed, signature, trusted)).toThrow(
      /SHA256SUMS does not match its signature by key \w+: the file was changed after signing/,
    );
  });

  it('refuse an unknown key, naming it and the trusted ones', () => {
    const signature = signReleaseFile('SHA256SUMS', sums, other.privateKey);
    expect(() => verifyReleaseFile('SHA256SUMS', sums, signature, trusted)).toThrow(
      /signed with key \w{8}, which this installer does not trust \(trusted keys: a006e716, \w{8}\)/,
    );
  });

  it('refuse a key id that lies: only the signature decides', () => {
    const envelope = JSON.parse(signReleaseFile('SHA256SUMS', sums, other.privateKey));
    envelope.keyId = trusted[1]!.keyId;
    expect(() => verifyReleaseFile('SHA256SUMS', sums, JSON.stringify(envelope), trusted)).toThrow(
      'the file was changed after signing',
    );
  });

  it(
    'refuse the signature of the other signed file, and a bare signature over the ' + 'bytes (as a licence is signed)',
    () => {
      const manifestSignature = signReleaseFile('manifest.json', sums, key.privateKey);
      expect(() => verifyReleaseFile('SHA256SUMS', sums, manifestSignature, trusted)).toThrow(
        'is the signature of "manifest.json", not of SHA256SUMS',
      );
      const envelope = JSON.parse(signReleaseFile('SHA256SUMS', sums, key.privateKey));
      envelope.signature = sign(null, sums, key.privateKey).toString('base64url');
      expect(() => verifyReleaseFile('SHA256SUMS', sums, JSON.stringify(envelope), trusted)).toThrow(
        'changed after signing',
      );
    },
  );

  it.each([
    '',
    'null',
    '[]',
    '{"format":"other"}',
    '{"format":"service-release-signature-v1","file":"SHA256SUMS","keyId":"x","signature":"abc"}',
    'x'.repeat(5000),
  ])('refuse the malformed signature file %j', (text) => {
    expect(() => verifyReleaseFile('SHA256SUMS', sums, text, trusted)).toThrow(/SHA256SUMS\.sig/);
  });
});
