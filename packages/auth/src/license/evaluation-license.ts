import { randomUUID } from 'node:crypto';
import { ALL_FEATURES, type EvaluationLicense } from './license.ts';
import { LicenseError } from './license-error.ts';
import { isLicenseExpired } from './license-expiry.ts';

export const EVALUATION_DAYS = 30;
export const EVALUATION_SEATS = 5;
const DAY_MS = 24 * 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What the caller stores on first start so the evaluation period counts from then and survives
 * restarts. Dates may be Date (as read back from a timestamptz column) or ISO strings.
 */
export interface EvaluationLicenseRecord {
  id: string;
  issuedAt: Date | string;
  expiresAt: Date | string;
}

/** A new evaluation licence starting at `now`. Store its id, issuedAt and expiresAt. */
export function createEvaluationLicense(now: Date): EvaluationLicense {
  return buildEvaluationLicense(randomUUID(), now, new Date(now.getTime() + EVALUATION_DAYS * DAY_MS), now);
}

/**
 * The evaluation licence for a stored record, with `expired` recomputed for `now`.
 * Why features are not stored: an evaluation grants everything this release offers, including
 * features added by an upgrade during the evaluation.
 */
export function evaluationLicenseFromRecord(record: EvaluationLicenseRecord, now: Date): EvaluationLicense {
  if (typeof record.id !== 'string' || !UUID.test(record.id)) {
    throw invalidRecord(`stored evaluation licence has an invalid id "${String(record.id)}"`);
  }
  const issuedAt = toDate(record.issuedAt, 'issuedAt', record.id);
  const expiresAt = toDate(record.expiresAt, 'expiresAt', record.id);
  return buildEvaluationLicense(record.id, issuedAt, expiresAt, now);
}

function buildEvaluationLicense(id: string, issuedAt: Date, expiresAt: Date, now: Date): EvaluationLicense {
  const license: EvaluationLicense = {
    kind: 'evaluation',
    id,
    holder: 'Evaluation',
    edition: 'self-hosted',
    features: [...ALL_FEATURES],
    seats: EVALUATION_SEATS,
    issuedAt: issuedAt.toISOString(),
    expiresAt: expiresAt.toISOString(),
    keyId: null,
    expired: false,
  };
  license.expired = isLicenseExpired(license, now);
  return license;
}

function toDate(value: Date | string, field: string, id: string): Date {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) {
    throw invalidRecord(`stored evaluation licence ${id} has an invalid "${field}" (${String(value)})`);
  }
  return date;
}

function invalidRecord(message: string): LicenseError {
  return new LicenseError('invalid_payload', message, {
    hint: 'Install a licence from the vendor (LICENSE_FILE); the stored evaluation record is damaged.',
  });
}
