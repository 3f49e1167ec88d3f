import { describe, expect, it } from 'vitest';
import { createEvaluationLicense, licenseAllows, type License, type LicenseFeature } from './index.ts';
import { FIXED_NOW, signedLicense } from './testing/license-fixtures.ts';

const acme = signedLicense({ features: ['api', 'docx-export'], expiresAt: '2027-12-31T23:59:59.999Z' });
const lapsed = signedLicense({ features: ['api'], expiresAt: '2026-01-01T00:00:00.000Z', expired: true });
// Verified while still current; the flag is stale by the time of the request.
const staleFlag = signedLicense({ features: ['api'], expiresAt: '2026-06-01T00:00:00.000Z', expired: false });
const evaluation = createEvaluationLicense(FIXED_NOW);

describe('licenseAllows', () => {
  it.each<[string, License | null, LicenseFeature, Date, boolean]>([
    ['no licence', null, 'api', FIXED_NOW, false],
    ['listed feature', acme, 'api', FIXED_NOW, true],
    ['other listed feature', acme, 'docx-export', FIXED_NOW, true],
    ['feature not listed', acme, 'scanner-import', FIXED_NOW, false],
    ['last millisecond', acme, 'api', new Date('2027-12-31T23:59:59.998Z'), true],
    ['at expiry', acme, 'api', new Date('2027-12-31T23:59:59.999Z'), false],
    ['expired licence', lapsed, 'api', FIXED_NOW, false],
    ['expired since it was read', staleFlag, 'api', FIXED_NOW, false],
    ['evaluation, any feature', evaluation, 'markdown-import', FIXED_NOW, true],
    ['evaluation after 30 days', evaluation, 'api', new Date('2026-12-21T12:00:00.000Z'), false],
  ])('%s', (_name, license, feature, now, expected) => {
    expect(licenseAllows(license, feature, now)).toBe(expected);
  });
});
