import { ALL_FEATURES, type License } from './license.ts';
import { isLicenseExpired, licenseExpiryDate } from './license-expiry.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * One line for status output, for example
 * "Evaluation licence, all features, expires 2026-12-21 (30 days left)" or
 * "Self-hosted licence for Acme Ltd, features api, docx-export, 10 seats, expired on 2026-01-01".
 */
export function describeLicense(license: License | null, now: Date): string {
  if (license === null) return 'No licence installed';
  const parts: string[] = [];
  if (license.kind === 'evaluation') {
    parts.push('Evaluation licence');
  } else {
    parts.push(`${license.edition === 'hosted' ? 'Hosted' : 'Self-hosted'} licence for ${license.holder}`);
  }
  parts.push(describeFeatures(license.features));
  if (license.kind === 'signed') parts.push(plural(license.seats, 'seat'));
  parts.push(describeExpiry(license, now));
  return parts.join(', ');
}

function describeFeatures(features: readonly string[]): string {
  if (ALL_FEATURES.every((f) => features.includes(f))) return 'all features';
  if (features.length === 0) return 'no features';
  return `features ${features.join(', ')}`;
}

function describeExpiry(license: License, now: Date): string {
  const date = licenseExpiryDate(license);
  if (isLicenseExpired(license, now)) return `expired on ${date}`;
  // Why round up: on the last day there is still part of a day left, and "0 days left" reads as expired.
  const days = Math.ceil((Date.parse(license.expiresAt) - now.getTime()) / DAY_MS);
  return `expires ${date} (${plural(days, 'day')} left)`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
