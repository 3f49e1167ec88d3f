import path from 'node:path';
import {
  MANIFEST_FILE,
  parsePackageManifest,
  readSmallFile,
  SIGNATURE_SUFFIX,
  verifyReleaseFile,
  type PackageManifest,
  type ReleaseSigner,
  type TrustedKey,
} from '@service/release-kit';

export interface InstalledRelease {
  manifest: PackageManifest | null;
  signer: ReleaseSigner | null;
  /** Why the manifest or its signature could not be used; null when both are fine. */
  problem: string | null;
}

/**
 * The release the installation runs, from the manifest.json (and its signature) that install,
 * upgrade and restore copy into the installation: its image digests, schema heads, and who
 * signed it. Read-only; a missing or unverifiable manifest is reported, not thrown.
 */
export async function readInstalledRelease(
  home: string,
  trustedKeys: readonly TrustedKey[],
): Promise<InstalledRelease> {
  const text = await readSmallFile(path.join(home, MANIFEST_FILE), 256 * 1024).catch(() => null);
  if (text === null) return { manifest: null, signer: null, problem: `${MANIFEST_FILE} is missing in ${home}` };
  let manifest: PackageManifest;
  try {
    manifest = parsePackageManifest(text, path.join(home, MANIFEST_FILE));
  } catch (err) {
    return { manifest: null, signer: null, problem: (err as Error).message };
  }
  try {
    const signature = await readSmallFile(path.join(home, `${MANIFEST_FILE}${SIGNATURE_SUFFIX}`), 4096);
    return {
      manifest,
      signer: verifyReleaseFile(MANIFEST_FILE, Buffer.from(text), signature, trustedKeys),
      problem: null,
    };
  } catch (err) {
    return { manifest, signer: null, problem: (err as Error).message };
  }
}
