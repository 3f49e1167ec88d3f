import { describe, expect, it } from 'vitest';
import { ReleaseKitError } from './release-kit-error.ts';
import {
  checkMinUpgradeFrom,
  compareVersions,
  decideUpgrade,
  explainUpgradeDecision,
  newestVersion,
  parseReleaseVersion,
} from './versions.ts';

describe('parseReleaseVersion', () => {
  it.each(['1.0.0', '0.1.0', '10.20.30', '2.0.0-rc.1', '1.4.0-alpha.10'])('accepts %s', (v) => {
    expect(parseReleaseVersion(v)).toBe(v);
  });
  it.each(['v1.0.0', '1.0', '1', '01.0.0', '1.0.0.0', '', 'latest', '1.0.0-', ' 1.0.0x', '=1.0.0', '1.0.0+build.5'])(
    'refuses %j naming it',
    (v) => {
      expect(() => parseReleaseVersion(v, 'package version')).toThrow(ReleaseKitError);
      expect(() => parseReleaseVersion(v, 'package version')).toThrow(
        `package version "${v}" is not a semantic version`,
      );
    },
  );
});

describe('compareVersions', () => {
  it.each([
    ['1.0.0', '1.0.1', -1],
    ['1.0.10', '1.0.9', 1],
    ['1.10.0', '1.9.0', 1],
    ['2.0.0', '10.0.0', -1],
    ['1.0.0-rc.1', '1.0.0', -1],
    ['1.0.0-rc.2', '1.0.0-rc.10', -1],
    ['1.0.0-alpha', '1.0.0-beta', -1],
    ['3.1.4', '3.1.4', 0],
  ])('%s vs %s', (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
  });
  it('picks the newest', () => {
    expect(newestVersion(['1.2.0', '1.10.0', '1.9.9', '1.10.0-rc.1'])).toBe('1.10.0');
  });
});

describe('decideUpgrade', () => {
  const offer = (version: string, minUpgradeFrom = '1.0.0') => ({ version, minUpgradeFrom });
  it.each([
    ['1.0.0', offer('1.1.0'), { kind: 'upgrade', from: '1.0.0', to: '1.1.0' }],
    ['1.9.0', offer('1.10.0'), { kind: 'upgrade', from: '1.9.0', to: '1.10.0' }],
    ['1.2.0-rc.1', offer('1.2.0'), { kind: 'upgrade', from: '1.2.0-rc.1', to: '1.2.0' }],
    ['1.2.0', offer('1.2.0'), { kind: 'same', version: '1.2.0' }],
    ['1.3.0', offer('1.2.0'), { kind: 'older', installed: '1.3.0', offered: '1.2.0' }],
    ['1.2.0', offer('1.2.0-rc.1'), { kind: 'older', installed: '1.2.0', offered: '1.2.0-rc.1' }],
    [
      '1.0.0',
      offer('2.0.0', '1.5.0'),
      { kind: 'below-minimum', installed: '1.0.0', offered: '2.0.0', upgradeFirstTo: '1.5.0' },
    ],
    [
      '1.5.0-rc.1',
      offer('2.0.0', '1.5.0'),
      { kind: 'below-minimum', installed: '1.5.0-rc.1', offered: '2.0.0', upgradeFirstTo: '1.5.0' },
    ],
    ['1.5.0', offer('2.0.0', '1.5.0'), { kind: 'upgrade', from: '1.5.0', to: '2.0.0' }],
    ['1.9.3', offer('2.0.0', '1.5.0'), { kind: 'upgrade', from: '1.9.3', to: '2.0.0' }],
  ] as const)('installed %s, package %j', (installed, offered, expected) => {
    expect(decideUpgrade(installed, offered)).toEqual(expected);
  });

  it('refuses a version that is not semver before deciding anything', () => {
    expect(() => decideUpgrade('1.0', offer('1.1.0'))).toThrow('installed version "1.0" is not a semantic version');
    expect(() => decideUpgrade('1.0.0', offer('latest'))).toThrow('package version "latest"');
  });

  it('explains each refusal with the next step', () => {
    expect(explainUpgradeDecision(decideUpgrade('1.0.0', offer('1.1.0')))).toBeNull();
    expect(explainUpgradeDecision(decideUpgrade('1.2.0', offer('1.2.0')))).toEqual({
      message: 'already at 1.2.0; nothing to upgrade',
      hint: 'Run `install.sh status` to see the installation.',
    });
    const older = explainUpgradeDecision(decideUpgrade('1.3.0', offer('1.2.0')))!;
    expect(older.message).toBe('the package holds 1.2.0, older than the installed 1.3.0; upgrade never goes back');
    expect(older.hint).toContain('install.sh restore <backup>` from the directory of service-1.2.0-offline.tar.gz');
    const below = explainUpgradeDecision(decideUpgrade('1.0.0', offer('2.0.0', '1.5.0')))!;
    expect(below.message).toBe('2.0.0 cannot be installed over 1.0.0 directly; it upgrades only from 1.5.0 or later');
    expect(below.hint).toBe('Upgrade to 1.5.0 first (service-1.5.0-offline.tar.gz), then to 2.0.0.');
  });
});

describe('checkMinUpgradeFrom', () => {
  it('accepts an older or equal minimum and refuses a newer one', () => {
    expect(() => checkMinUpgradeFrom('2.0.0', '1.0.0')).not.toThrow();
    expect(() => checkMinUpgradeFrom('2.0.0', '2.0.0')).not.toThrow();
    expect(() => checkMinUpgradeFrom('2.0.0', '2.0.1')).toThrow(
      'minUpgradeFrom 2.0.1 is newer than the release 2.0.0 itself',
    );
  });
});
