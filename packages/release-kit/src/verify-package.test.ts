import { renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { releaseTrustedKeys } from './release-signature.ts';
import {
  createTestFolder,
  createTestSigningKey,
  signTestPackage,
  writeTestPackage,
  type TestFolder,
} from './testing/index.ts';
import { verifyPackage } from './verify-package.ts';

const key = createTestSigningKey();
const trusted = releaseTrustedKeys([key.publicBase64], 'test');

describe('verifyPackage', () => {
  let folder: TestFolder;
  let dir: string;
  beforeEach(async () => {
    folder = createTestFolder();
    dir = await writeTestPackage(folder, { version: '1.3.0', minUpgradeFrom: '1.0.0', signWith: key });
  });
  afterEach(() => folder.remove());

  it('accepts a signed, complete package and returns its manifest and signer', async () => {
    const verified = await verifyPackage(dir, trusted);
    expect(verified.manifest.version).toBe('1.3.0');
    expect(verified.signer.vendor).toBe(false);
  });

  it(
    'checks the signature before anything else: an unsigned package with a broken ' + 'file is refused as unsigned',
    async () => {
      rmSync(path.join(dir, 'SHA256SUMS.sig'));
      writeFileSync(path.join(dir, 'compose.yaml'), 'tampered');
      await expect(verifyPackage(dir, trusted)).rejects.toMatchObject({ code: 'signature_missing' });
    },
  );

  it('refuses a package signed with a key not configured', async () => {
    await signTestPackage(dir, createTestSigningKey());
    await expect(verifyPackage(dir, trusted)).rejects.toMatchObject({ code: 'signature_unknown_key' });
  });

  it('refuses a manifest changed after signing even when SHA256SUMS was recomputed', async () => {
    const manifest = path.join(dir, 'manifest.json');
    writeFileSync(manifest, (await import('node:fs')).readFileSync(manifest, 'utf8').replace('"1.3.0"', '"1.4.0"'));
    await expect(verifyPackage(dir, trusted)).rejects.toMatchObject({ code: 'signature_mismatch' });
  });

  it('names tampered, missing and unlisted files', async () => {
    writeFileSync(path.join(dir, 'compose.yaml'), 'services: {evil: {}}\n');
    rmSync(path.join(dir, 'install.sh'));
    writeFileSync(path.join(dir, 'backdoor.sh'), 'x');
    await expect(verifyPackage(dir, trusted)).rejects.toThrow(
      'the package files do not match SHA256SUMS: 1 changed (compose.yaml), 1 missing ' +
        '(install.sh), 1 not listed (backdoor.sh)',
    );
  });

  it('names a missing image archive', async () => {
    renameSync(path.join(dir, 'images/proxy.tar'), path.join(folder.dir, 'proxy.tar'));
    await signTestPackage(dir, key);
    await expect(verifyPackage(dir, trusted)).rejects.toThrow(
      'the package has no archive for the proxy image caddy:2.10.2-alpine (images/proxy.tar is not in SHA256SUMS)',
    );
  });

  it('says when the folder is not a package at all', async () => {
    await expect(verifyPackage(folder.dir, trusted)).rejects.toThrow(/is not a release package: SHA256SUMS is missing/);
  });
});
