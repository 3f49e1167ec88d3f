import { LICENSE_EDITIONS, type LicenseEdition, type LicensePayload } from './license.ts';
import { LicenseError } from './license-error.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const FEATURE_NAME = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Checks a licence payload field by field and returns only the known fields, in a fixed order.
 * Used when signing (so the vendor cannot issue a broken licence) and after verifying (so a
 * signed but malformed payload is reported by field name instead of failing later).
 */
export function parseLicensePayload(value: unknown): LicensePayload {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('licence payload must be a JSON object');
  }
  const v = value as Record<string, unknown>;

  const id = v.id;
  if (typeof id !== 'string' || !UUID.test(id)) throw invalid('licence payload field "id" must be a UUID');

  const holder = v.holder;
  if (typeof holder !== 'string' || holder.trim() === '') {
    throw invalid('licence payload field "holder" must be a non-empty string');
  }

  const edition = v.edition;
  if (typeof edition !== 'string' || !LICENSE_EDITIONS.includes(edition as LicenseEdition)) {
    throw invalid(`licence payload field "edition" must be one of ${LICENSE_EDITIONS.join(', ')}`);
  }

  const features = v.features;
  if (!Array.isArray(features) || !features.every((f) => typeof f === 'string' && FEATURE_NAME.test(f))) {
    throw invalid('licence payload field "features" must be a list of feature names such as "api"');
  }

  const seats = v.seats;
  if (typeof seats !== 'number' || !Number.isSafeInteger(seats) || seats < 1) {
    throw invalid('licence payload field "seats" must be a whole number of at least 1');
  }

  const issuedAt = parseTimestamp(v.issuedAt, 'issuedAt');
  const expiresAt = parseTimestamp(v.expiresAt, 'expiresAt');
  if (Date.parse(expiresAt) <= Date.parse(issuedAt)) {
    throw invalid(`licence payload field "expiresAt" (${expiresAt}) must be later than "issuedAt" (${issuedAt})`);
  }

  return {
    id,
    holder,
    edition: edition as LicenseEdition,
    features: [...features] as string[],
    seats,
    issuedAt,
    expiresAt,
  };
}

function parseTimestamp(value: unknown, field: string): string {
  if (typeof value !== 'string' || !ISO_TIMESTAMP.test(value) || !Number.isFinite(Date.parse(value))) {
    throw invalid(
      `licence payload field "${field}" must be an ISO 8601 timestamp with a time zone, such as 2027-12-31T23:59:59Z`,
    );
  }
  return value;
}

function invalid(message: string): LicenseError {
  return new LicenseError('invalid_payload', message, { hint: 'Ask the vendor to issue the licence again.' });
}
