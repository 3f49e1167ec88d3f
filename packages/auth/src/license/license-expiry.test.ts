import { describe, expect, it } from 'vitest';
import { LicenseError, assertLicenseCurrent, createEvaluationLicense } from './index.ts';
import { FIXED_NOW, signedLicense } from './testing/license-fixtures.ts';

describe('assertLicenseCurrent', () => {
  it('passes a current licence and throws for an expired one, naming holder and date', () => {
    expect(() => assertLicenseCurrent(signedLicense(), FIXED_NOW)).not.toThrow();
    const lapsed = signedLicense({ expiresAt: '2026-01-01T00:00:00.000Z' });
    expect(() => assertLicenseCurrent(lapsed, FIXED_NOW)).toThrow(
      `licence ${lapsed.id} for Acme Ltd expired on 2026-01-01`,
    );
    try {
      assertLicenseCurrent(lapsed, FIXED_NOW);
    } catch (err) {
      expect(err).toBeInstanceOf(LicenseError);
      expect((err as LicenseError).reason).toBe('expired');
      expect((err as LicenseError).hint).toMatch(/renewed licence/);
    }
  });

  it('says when an evaluation ran out', () => {
    const evaluation = createEvaluationLicense(FIXED_NOW);
    expect(() => assertLicenseCurrent(evaluation, new Date('2027-01-01T00:00:00Z'))).toThrow(
      'evaluation licence expired on 2026-12-21',
    );
  });
});
