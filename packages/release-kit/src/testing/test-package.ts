import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE, SIGNATURE_SUFFIX, SUMS_FILE, UNLISTED_FILES, packageDirName } from '../package-layout.ts';
import {
  MANIFEST_FORMAT,
  serializePackageManifest,
  type ManifestImage,
  type PackageManifest,
} from '../package-manifest.ts';
import { signReleaseFile } from '../release-signature.ts';
import { formatSha256Sums, hashTree } from '../sha256-sums.ts';
import { createTestFolder, type TestFolder } from './test-folder.ts';

/** A signing key pair for tests, with its public half as the installer configuration takes it. */
export interface TestSigningKey {
  privateKey: KeyObject;
  privatePem: string;
  publicBase64: string;
}

export function createTestSigningKey(): TestSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey,
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicBase64: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  };
}

const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** Images of a small package: the bytes of each archive are a line of text (no engine reads them here). */
export function testImages(version: string): Array<ManifestImage & { content: string }> {
  const image = (role: ManifestImage['role'], name: string, tag: string): ManifestImage & { content: string } => {
    const content = `image ${name}:${tag}\n`;
    return {
      role,
      name,
      tag,
      digest: digestOf(content),
      archive: `images/${role}.tar`,
      bytes: Buffer.byteLength(content),
      content,
    };
  };
  return [
    image('app', 'service/app', version),
    image('database', 'postgres', '17.6-bookworm'),
    image('files', 'busybox', '1.37.0'),
    image('proxy', 'caddy', '2.10.2-alpine'),
  ];
}

export interface TestPackageOptions {
  version: string;
  minUpgradeFrom?: string;
  /** null: leave the package unsigned. */
  signWith: TestSigningKey | null;
  /** Extra or replacement files (relative to the package folder), written before SHA256SUMS. */
  files?: Record<string, string>;
  manifest?: Partial<PackageManifest>;
}

/**
 * Writes a complete, signed package folder `service-<version>/` the way tools/release lays it
 * out, small enough for unit tests. Returns the folder; tests then tamper with it.
 */
export async function writeTestPackage(folder: TestFolder, options: TestPackageOptions): Promise<string> {
  const dirName = packageDirName(options.version);
  const images = testImages(options.version);
  folder.write({
    [`${dirName}/install.sh`]: '#!/bin/sh\necho launcher\n',
    [`${dirName}/installer/installer.mjs`]: '// installer\n',
    [`${dirName}/compose.yaml`]: `name: service\n# ${options.version}\n`,
    [`${dirName}/docker/Dockerfile`]: 'FROM node\n',
    [`${dirName}/docker/Caddyfile`]: ':443 {}\n',
    [`${dirName}/docker/certs/README.md`]: 'certs\n',
    [`${dirName}/.env.self-hosted.example`]: 'SERVICE_VERSION=\n',
    [`${dirName}/RELEASE_NOTES.md`]: `## [${options.version}]\n`,
    [`${dirName}/library/README.md`]: 'library\n',
    ...Object.fromEntries(images.map((i) => [`${dirName}/${i.archive}`, i.content])),
    ...Object.fromEntries(Object.entries(options.files ?? {}).map(([k, v]) => [`${dirName}/${k}`, v])),
  });
  const dir = folder.path(dirName);
  const manifest: PackageManifest = {
    format: MANIFEST_FORMAT,
    product: 'service',
    version: options.version,
    minUpgradeFrom: options.minUpgradeFrom ?? '0.1.0',
    createdAt: '2026-11-20T00:00:00.000Z',
    sourceSha: '0'.repeat(40),
    images: images.map(({ content: _content, ...image }) => image),
    library: { version: 'abc123', items: 3 },
    schemaHeads: {
      controlPlane: '20261121000000_installation',
      shared: '20261121000000_library_release',
      tenant: '20261121000000_workspace',
    },
    ...options.manifest,
  };
  writeFileSync(path.join(dir, MANIFEST_FILE), serializePackageManifest(manifest));
  await signTestPackage(dir, options.signWith);
  return dir;
}

/** (Re)writes SHA256SUMS for the folder as it is now, and signs it and the manifest (unless key is null). */
export async function signTestPackage(dir: string, key: TestSigningKey | null): Promise<void> {
  const sums = formatSha256Sums(await hashTree(dir, { exclude: UNLISTED_FILES }));
  writeFileSync(path.join(dir, SUMS_FILE), sums);
  if (key === null) return;
  for (const file of [SUMS_FILE, MANIFEST_FILE]) {
    const bytes = file === SUMS_FILE ? Buffer.from(sums) : readFileSync(path.join(dir, file));
    writeFileSync(path.join(dir, `${file}${SIGNATURE_SUFFIX}`), signReleaseFile(file, bytes, key.privateKey));
  }
}

export { createTestFolder, type TestFolder };
