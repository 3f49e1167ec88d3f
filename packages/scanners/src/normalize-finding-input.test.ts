import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { LIMITS, normalizeFindingInput, NormalizedFindingSchema } from './index.ts';

const validator = Compile(NormalizedFindingSchema);
const minimal = { source: { scanner: 'manual' }, ruleId: 'R-1', title: 'Weak TLS', severity: 'medium' };

describe('NormalizedFindingSchema for hand-written findings', () => {
  it('accepts the minimal finding a person would write', () => {
    expect(validator.Check(minimal)).toBe(true);
    expect(validator.Check({ ...minimal, occurrences: [{ asset: { id: '10.0.0.1' } }] })).toBe(true);
  });

  it.each([
    ['no title', { ...minimal, title: undefined }],
    ['an empty title', { ...minimal, title: '' }],
    ['a title over the cap', { ...minimal, title: 'x'.repeat(LIMITS.titleChars + 1) }],
    ['an unknown severity', { ...minimal, severity: 'severe' }],
    ['no ruleId', { ...minimal, ruleId: undefined }],
    ['no scanner', { ...minimal, source: {} }],
    ['a misspelt field', { ...minimal, severty: 'low' }],
    ['a CVE that is not one', { ...minimal, cves: ['CVE-12'] }],
    ['a CWE given as text', { ...minimal, cwes: ['CWE-79'] }],
    ['an occurrence without asset', { ...minimal, occurrences: [{ port: 80 }] }],
    ['a port out of range', { ...minimal, occurrences: [{ asset: { id: 'a' }, port: 70_000 }] }],
    [
      'evidence over 1 MiB',
      { ...minimal, occurrences: [{ asset: { id: 'a' }, evidence: { output: 'x'.repeat(LIMITS.evidenceChars + 1) } }] },
    ],
  ])('rejects %s', (_label, value) => {
    expect(validator.Check(value)).toBe(false);
  });
});

describe('normalizeFindingInput', () => {
  it('fills the defaults', () => {
    expect(normalizeFindingInput({ ...minimal, occurrences: [{ asset: { id: 'a' } }] } as never)).toEqual({
      ...minimal,
      groupKey: 'R-1',
      severityRaw: 'medium',
      confidence: null,
      description: '',
      impact: null,
      remediation: null,
      references: [],
      cves: [],
      cwes: [],
      cvss: [],
      occurrences: [{ asset: { id: 'a' }, severity: 'medium' }],
    });
  });

  it('restores the invariants: upper-case unique CVEs, unique CWEs, severity at least the highest occurrence', () => {
    const finding = normalizeFindingInput({
      ...minimal,
      severity: 'low',
      cves: ['cve-2024-0001', 'CVE-2024-0001', 'CVE-2024-0002'],
      cwes: [79, 79, 89],
      occurrences: [{ asset: { id: 'a' }, severity: 'high' }, { asset: { id: 'b' } }],
    } as never);
    expect(finding.cves).toEqual(['CVE-2024-0001', 'CVE-2024-0002']);
    expect(finding.cwes).toEqual([79, 89]);
    expect(finding.severity).toBe('high');
    expect(finding.occurrences.map((o) => o.severity)).toEqual(['high', 'low']);
    expect(validator.Check(finding)).toBe(true);
  });
});
