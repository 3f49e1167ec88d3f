import { describe, expect, it } from 'vitest';
import { ALL_FEATURES, createEvaluationLicense, describeLicense } from './index.ts';
import { FIXED_NOW, signedLicense } from './testing/license-fixtures.ts';

describe('describeLicense', () => {
  it.each([
    ['no licence', null, FIXED_NOW, 'No licence installed'],
    [
      'fresh evaluation',
      createEvaluationLicense(FIXED_NOW),
      FIXED_NOW,
      'Evaluation licence, all features, expires 2026-12-21 (30 days left)',
    ],
    [
      'evaluation on its last day',
      createEvaluationLicense(FIXED_NOW),
      new Date('2026-12-21T00:00:00Z'),
      'Evaluation licence, all features, expires 2026-12-21 (1 day left)',
    ],
    [
      'expired evaluation',
      createEvaluationLicense(FIXED_NOW),
      new Date('2027-01-01T00:00:00Z'),
      'Evaluation licence, all features, expired on 2026-12-21',
    ],
    [
      'signed self-hosted',
      signedLicense(),
      FIXED_NOW,
      'Self-hosted licence for Acme Ltd, features api, docx-export, 10 seats, expires 2027-12-31 (406 days left)',
    ],
    [
      'signed hosted, all features, one seat',
      signedLicense({ edition: 'hosted', features: [...ALL_FEATURES], seats: 1 }),
      FIXED_NOW,
      'Hosted licence for Acme Ltd, all features, 1 seat, expires 2027-12-31 (406 days left)',
    ],
    [
      'signed, expired, no features',
      signedLicense({ features: [], expiresAt: '2026-01-01T00:00:00.000Z', issuedAt: '2025-01-01T00:00:00.000Z' }),
      FIXED_NOW,
      'Self-hosted licence for Acme Ltd, no features, 10 seats, expired on 2026-01-01',
    ],
  ])('%s', (_name, license, now, expected) => {
    expect(describeLicense(license, now)).toBe(expected);
  });
});
