import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import type { TrustedKey } from '@service/auth';
import { MANIFEST_FILE, SIGNATURE_SUFFIX, SUMS_FILE, UNLISTED_FILES } from './package-layout.ts';
import { parsePackageManifest, type PackageManifest } from './package-manifest.ts';
import { ReleaseKitError } from './release-kit-error.ts';
import { verifyReleaseFile, type ReleaseSigner } from './release-signature.ts';
import { MAX_SUMS_BYTES, parseSha256Sums, verifyTreeAgainstSums, type SumsComparison } from './sha256-sums.ts';

export interface VerifiedPackage {
  dir: string;
  manifest: PackageManifest;
  /** The key that signed SHA256SUMS (and manifest.json). */
  signer: ReleaseSigner;
  /** The exact bytes that were verified, for copying into the installation. */
  manifestText: string;
}

/**
 * Checks an extracted package, in this order, and throws ReleaseKitError at the first problem:
 * 1. the signatures of SHA256SUMS and manifest.json (missing, malformed, unknown key, mismatch);
 * 2. the manifest (schema and version rules);
 * 3. every file against SHA256SUMS: none missing, none changed, none unlisted, no links;
 * 4. every image the manifest names is listed and present.
 * Reading is bounded: only the small signed files are read whole before their signature is checked.
 */
export async function verifyPackage(
  dir: string,
  trustedKeys: readonly TrustedKey[],
  options: { onBytes?: (n: number) => void } = {},
): Promise<VerifiedPackage> {
  const sumsText = await readSmallFile(path.join(dir, SUMS_FILE), MAX_SUMS_BYTES);
  const manifestText = await readSmallFile(path.join(dir, MANIFEST_FILE), 256 * 1024);
  if (sumsText === null || manifestText === null) {
    const missing = sumsText === null ? SUMS_FILE : MANIFEST_FILE;
    throw new ReleaseKitError('package_files', `${dir} is not a release package: ${missing} is missing`, {
      hint: 'Run the command from the folder extracted from service-X.Y.Z-offline.tar.gz.',
    });
  }
  const sumsSignature = await readSmallFile(path.join(dir, `${SUMS_FILE}${SIGNATURE_SUFFIX}`), 4096);
  const manifestSignature = await readSmallFile(path.join(dir, `${MANIFEST_FILE}${SIGNATURE_SUFFIX}`), 4096);
  const signer = verifyReleaseFile(SUMS_FILE, Buffer.from(sumsText, 'utf8'), sumsSignature, trustedKeys);
  verifyReleaseFile(MANIFEST_FILE, Buffer.from(manifestText, 'utf8'), manifestSignature, trustedKeys);

  const manifest = parsePackageManifest(manifestText);
  const listed = parseSha256Sums(sumsText);
  if (!listed.has(MANIFEST_FILE))
    throw new ReleaseKitError('package_files', `${SUMS_FILE} does not list ${MANIFEST_FILE}`, {
      hint: 'Get the package again from the vendor.',
    });

  const comparison = await verifyTreeAgainstSums(dir, sumsText, { exclude: UNLISTED_FILES, onBytes: options.onBytes });
  if (!comparison.ok) {
    throw new ReleaseKitError(
      'package_files',
      `the package files do not match ${SUMS_FILE}: ${describeComparison(comparison)}`,
      {
        hint:
          'Do not use this package. Get it and its .sha256 file again from the vendor and ' +
          'check it with `sha256sum -c`.',
      },
    );
  }
  for (const image of manifest.images) {
    if (!listed.has(image.archive)) {
      throw new ReleaseKitError(
        'missing_image',
        `the package has no archive for the ${image.role} image ${image.name}:${image.tag} ` +
          `(${image.archive} is not in ${SUMS_FILE})`,
        {
          hint: 'Get the package again from the vendor.',
        },
      );
    }
  }
  return { dir, manifest, signer, manifestText };
}

/**
 * "2 changed (images/app.tar, compose.yaml), 1 missing (install.sh), 1 not listed (notes.txt)": at most 5 names each.
 */
export function describeComparison(c: SumsComparison): string {
  const part = (label: string, files: string[]) =>
    files.length === 0
      ? null
      : `${files.length} ${label} ` +
        `(${files.slice(0, 5).join(', ')}${files.length > 5 ? `, and ${files.length - 5} more` : ''})`;
  return [part('changed', c.mismatched), part('missing', c.missing), part('not listed', c.extra)]
    .filter((p) => p !== null)
    .join(', ');
}

/** A file's text, or null when it does not exist; refuses files above `maxBytes` without reading them. */
export async function readSmallFile(file: string, maxBytes: number): Promise<string | null> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new ReleaseKitError('package_files', `${file} is not a regular file`);
    if (stat.size > maxBytes)
      throw new ReleaseKitError('package_files', `${file} is larger than ${maxBytes} bytes`, {
        hint: 'Get the package again from the vendor.',
      });
    return (await handle.readFile()).toString('utf8');
  } finally {
    await handle.close();
  }
}
