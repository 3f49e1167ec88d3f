import { describe, expect, it } from 'vitest';
import { ALL_FEATURES, createEvaluationLicense, evaluationLicenseFromRecord, licenseAllows } from './index.ts';
import { FIXED_NOW } from './testing/license-fixtures.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('createEvaluationLicense', () => {
  it('grants every feature to 5 seats for 30 days from now', () => {
    const license = createEvaluationLicense(FIXED_NOW);
    expect(license).toEqual({
      kind: 'evaluation',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      holder: 'Evaluation',
      edition: 'self-hosted',
      features: [...ALL_FEATURES],
      seats: 5,
      issuedAt: '2026-11-21T12:00:00.000Z',
      expiresAt: '2026-12-21T12:00:00.000Z',
      keyId: null,
      expired: false,
    });
    expect(ALL_FEATURES).toEqual(expect.arrayContaining(['api', 'docx-export', 'scanner-import', 'markdown-import']));
    expect(createEvaluationLicense(FIXED_NOW).id).not.toBe(license.id);
  });
});

describe('evaluationLicenseFromRecord', () => {
  const stored = createEvaluationLicense(FIXED_NOW);

  it('re-reads a stored evaluation (Date or string) and recomputes expired', () => {
    const dayBefore = new Date(FIXED_NOW.getTime() + 29 * DAY_MS);
    const atEnd = new Date(FIXED_NOW.getTime() + 30 * DAY_MS);
    const asStrings = { id: stored.id, issuedAt: stored.issuedAt, expiresAt: stored.expiresAt };
    const asDates = { id: stored.id, issuedAt: new Date(stored.issuedAt), expiresAt: new Date(stored.expiresAt) };
    expect(evaluationLicenseFromRecord(asStrings, dayBefore)).toEqual(stored);
    expect(evaluationLicenseFromRecord(asDates, dayBefore)).toEqual(stored);
    const expired = evaluationLicenseFromRecord(asDates, atEnd);
    expect(expired.expired).toBe(true);
    expect(licenseAllows(expired, 'api', atEnd)).toBe(false);
    expect(licenseAllows(expired, 'api', dayBefore)).toBe(true);
  });

  it('names the damaged field of a stored record', () => {
    expect(() =>
      evaluationLicenseFromRecord({ id: stored.id, issuedAt: 'yesterday', expiresAt: stored.expiresAt }, FIXED_NOW),
    ).toThrow(`stored evaluation licence ${stored.id} has an invalid "issuedAt" (yesterday)`);
    expect(() =>
      evaluationLicenseFromRecord({ id: '1', issuedAt: stored.issuedAt, expiresAt: stored.expiresAt }, FIXED_NOW),
    ).toThrow(/invalid id "1"/);
  });
});
