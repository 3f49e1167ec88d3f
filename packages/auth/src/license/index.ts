export { ALL_FEATURES, LICENSE_EDITIONS, LICENSE_FORMAT } from './license.ts';
export type {
  EvaluationLicense,
  License,
  LicenseEdition,
  LicenseFeature,
  LicensePayload,
  SignedLicense,
} from './license.ts';
export { LicenseError } from './license-error.ts';
export type { LicenseErrorOptions, LicenseErrorReason } from './license-error.ts';
export { parseLicensePayload } from './parse-license-payload.ts';
export { keyIdOf, parsePublicKey } from './trusted-key.ts';
export type { TrustedKey } from './trusted-key.ts';
export { VENDOR_PUBLIC_KEY_BASE64, VENDOR_PUBLIC_KEYS } from './vendor-public-key.ts';
export { buildTrustedKeys } from './build-trusted-keys.ts';
export { generateLicenseKeyPair, parseSigningKey } from './signing-key.ts';
export type { LicenseKeyPair } from './signing-key.ts';
export { signLicense } from './sign-license.ts';
export { verifyLicense } from './verify-license.ts';
export type { VerifyLicenseOptions } from './verify-license.ts';
export { assertLicenseCurrent, isLicenseExpired, licenseExpiryDate } from './license-expiry.ts';
export {
  createEvaluationLicense,
  evaluationLicenseFromRecord,
  EVALUATION_DAYS,
  EVALUATION_SEATS,
} from './evaluation-license.ts';
export type { EvaluationLicenseRecord } from './evaluation-license.ts';
export { licenseAllows } from './license-allows.ts';
export { describeLicense } from './describe-license.ts';
