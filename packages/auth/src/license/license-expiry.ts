import type { License, LicensePayload } from './license.ts';
import { LicenseError } from './license-error.ts';

/** True from the instant expiresAt is reached: a licence expiring 2027-12-31T23:59:59Z is over at that second. */
export function isLicenseExpired(license: Pick<LicensePayload, 'expiresAt'>, now: Date): boolean {
  return now.getTime() >= Date.parse(license.expiresAt);
}

/** The expiry as YYYY-MM-DD (UTC), the form used in messages and status output. */
export function licenseExpiryDate(license: Pick<LicensePayload, 'expiresAt'>): string {
  return new Date(license.expiresAt).toISOString().slice(0, 10);
}

/**
 * Throws LicenseError('expired') when the licence has expired at `now`. verifyLicense does not
 * do this itself (see there); use this where an expired licence must be refused outright, such
 * as the vendor's `verify` command.
 */
export function assertLicenseCurrent(license: License, now: Date): void {
  if (!isLicenseExpired(license, now)) return;
  const date = licenseExpiryDate(license);
  if (license.kind === 'evaluation') {
    throw new LicenseError('expired', `evaluation licence expired on ${date}`, {
      hint: 'Install a licence from the vendor (LICENSE_FILE) to keep using licensed features.',
    });
  }
  throw new LicenseError('expired', `licence ${license.id} for ${license.holder} expired on ${date}`, {
    hint: 'Ask the vendor for a renewed licence and replace the licence file.',
  });
}
