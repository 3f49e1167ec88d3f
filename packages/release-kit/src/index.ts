export { ReleaseKitError, type ReleaseKitErrorCode } from './release-kit-error.ts';
export {
  checkMinUpgradeFrom,
  compareVersions,
  decideUpgrade,
  explainUpgradeDecision,
  isReleaseVersion,
  newestVersion,
  parseReleaseVersion,
  type UpgradeDecision,
} from './versions.ts';
export * from './package-layout.ts';
export {
  IMAGE_ROLES,
  imageReference,
  MANIFEST_FORMAT,
  parsePackageManifest,
  serializePackageManifest,
  validateManifestRules,
  type ImageRole,
  type ManifestImage,
  type PackageManifest,
} from './package-manifest.ts';
export {
  assertSafeRelativePath,
  compareWithSums,
  formatSha256Sums,
  hashTree,
  isRegularFile,
  listTree,
  MAX_SUMS_BYTES,
  parseSha256Sums,
  sha256File,
  verifyTreeAgainstSums,
  type FileDigest,
  type SumsComparison,
} from './sha256-sums.ts';
export {
  isVendorKey,
  readReleaseSigningKey,
  releaseTrustedKeys,
  signReleaseFile,
  SIGNATURE_FORMAT,
  verifyReleaseFile,
  type ReleaseSigner,
} from './release-signature.ts';
export { describeComparison, readSmallFile, verifyPackage, type VerifiedPackage } from './verify-package.ts';
export type { TrustedKey } from '@service/auth';
export { freePort } from './free-port.ts';
export {
  LIBRARY_MANIFEST_FILE,
  LIBRARY_MANIFEST_FORMAT,
  parseLibraryManifestFile,
  serializeLibraryManifestFile,
  type LibraryManifestFile,
} from './library-manifest-file.ts';
