import type { License, LicenseFeature } from './license.ts';
import { isLicenseExpired } from './license-expiry.ts';

/**
 * Whether `license` grants `feature` at `now`: false with no licence, once expired, or when the
 * feature is not listed. The edition and seat count are not judged here.
 */
export function licenseAllows(license: License | null, feature: LicenseFeature, now: Date): boolean {
  if (license === null) return false;
  // Why recompute instead of reading license.expired: that flag is from when the licence was
  // read, and a long-running process outlives it.
  if (isLicenseExpired(license, now)) return false;
  return license.features.includes(feature);
}
