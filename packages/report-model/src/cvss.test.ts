import { describe, expect, it } from 'vitest';
import { cvssVersionOfVector, scoreCvssVector } from './cvss.ts';

describe('scoreCvssVector', () => {
  it.each([
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', '3.1', 9.8, null],
    ['CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:P/RL:O/RC:C', '3.0', 9.8, 8.8],
    ['AV:N/AC:L/Au:N/C:P/I:P/A:P', '2.0', 7.5, null],
    ['CVSS2#AV:N/AC:L/Au:N/C:P/I:P/A:P', '2.0', 7.5, null],
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', '4.0', 9.3, null],
    ['CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:C/C:L/I:L/A:N', '3.1', 4.7, null],
  ])('%s', (vector, version, base, temporal) => {
    const s = scoreCvssVector(vector);
    expect(s.version).toBe(version);
    expect(s.base).toBe(base);
    if (temporal !== null) expect(s.temporal).toBe(temporal);
  });

  it.each(['CVSS:3.1/AV:X/AC:L', 'CVSS:3.1/AV:N', 'nonsense', 'CVSS:9.9/AV:N', ''])(
    'refuses %j with a message',
    (vector) => {
      expect(() => scoreCvssVector(vector)).toThrow(/CVSS/);
    },
  );

  it('tells versions by prefix', () => {
    expect(cvssVersionOfVector('CVSS:4.0/AV:N')).toBe('4.0');
    expect(cvssVersionOfVector('AV:N/AC:L/Au:N/C:N/I:N/A:N')).toBe('2.0');
    expect(cvssVersionOfVector('AV:N')).toBeNull();
  });
});

describe('scoreCvssVector messages', () => {
  it('names an unknown metric value as an invalid vector', () => {
    expect(() => scoreCvssVector('CVSS:3.1/AV:Q/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')).toThrow(
      /is not a valid CVSS 3\.1 vector/,
    );
  });
});
