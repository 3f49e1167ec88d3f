import { describe, expect, it } from 'vitest';
import {
  MANIFEST_FORMAT,
  parsePackageManifest,
  serializePackageManifest,
  type PackageManifest,
} from './package-manifest.ts';
import { testImages } from './testing/test-package.ts';

const manifest: PackageManifest = {
  format: MANIFEST_FORMAT,
  product: 'service',
  version: '1.3.0',
  minUpgradeFrom: '1.0.0',
  createdAt: '2026-11-20T00:00:00.000Z',
  sourceSha: 'f'.repeat(40),
  images: testImages('1.3.0').map(({ content: _c, ...i }) => i),
  library: { version: 'abc', items: 12 },
  schemaHeads: { controlPlane: 'a', shared: null, tenant: 'c' },
};

describe('manifest.json', () => {
  it('round-trips with a fixed key order', () => {
    const text = serializePackageManifest({ ...manifest, images: [...manifest.images].reverse() });
    expect(text).toBe(serializePackageManifest(manifest));
    expect(parsePackageManifest(text)).toEqual(manifest);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it.each([
    [{ version: 'v1.3.0' }, 'version "v1.3.0" is not a semantic version'],
    [{ minUpgradeFrom: '1.4.0' }, 'minUpgradeFrom 1.4.0 is newer than the release 1.3.0 itself'],
    [{ format: 'other' }, 'field /format'],
    [{ images: [] }, 'field /images'],
    [{ images: [{ ...manifest.images[0]!, archive: 'images/../../etc/passwd' }] }, 'not a plain relative path'],
    [{ images: [{ ...manifest.images[0]!, archive: 'app.tar' }] }, 'is not stored under images/'],
    [{ images: [manifest.images[1]!] }, 'has no app image'],
    [
      { images: [manifest.images[0]!, { ...manifest.images[0]!, archive: 'images/b.tar' }] },
      'two images with the role app',
    ],
    [{ images: [{ ...manifest.images[0]!, digest: 'sha256:abc' }] }, 'field /images/0/digest'],
    [{ extra: true }, 'field /'],
  ])('refuses %j', (change, message) => {
    expect(() => parsePackageManifest(JSON.stringify({ ...manifest, ...change }))).toThrow(message);
  });

  it('refuses text that is not JSON', () => {
    expect(() => parsePackageManifest('{')).toThrow('manifest.json is not valid JSON');
  });
});
