import { describe, expect, it } from 'vitest';
import { cpeCovers, normalizeCpe, parseScannerRule, ruleIdProblem, SCANNER_RULE_PATTERN } from './index.ts';

describe('scanner rules', () => {
  it.each([
    ['nessus', '57608'],
    ['nessus', 'family=Windows : Microsoft Bulletins'],
    ['nessus', 'family=Web Servers & title=^Apache (HTTP Server )?[\\d.]+ <'],
    ['nessus', 'cpe=cpe:/a:oracle:jre & title=Critical Patch Update'],
    ['nessus', 'compliance=failed'],
    ['nessus', 'cve=CVE-2021-44228 & title=Log4j'],
    ['nuclei', 'http-missing-security-headers:strict-transport-security'],
    ['nuclei', 'tag=exposure & tag=config'],
    ['nmap', 'ssl-cert:expired'],
    ['nmap', 'cpe=cpe:2.3:a:openbsd:openssh & type=cve'],
    ['burp', '5245344'],
    ['burp', 'rule=16777472 & severity=info'],
    ['nuclei', 'cve=any'],
    ['burp', 'rule=16777472 & detail=certificate has expired'],
    ['nessus', 'rule=51192 & output=self-signed'],
    ['nuclei', 'rule=http-missing-security-headers:x-frame-options & severity=info'],
  ] as const)('accepts %s:%s', (scanner, rule) => {
    expect(ruleIdProblem(scanner, rule)).toBeNull();
    expect(new RegExp(SCANNER_RULE_PATTERN).test(`${scanner}:${rule}`)).toBe(true);
  });

  it.each([
    ['burp', 'tag=sqli', 'cannot test `tag`'],
    ['burp', 'severity=info', 'needs a condition about the rule too'],
    ['burp', 'rule=134217728 & severity=info', 'shared by every extension-generated'],
    ['burp', 'rule=16777472 & severity=severe', 'one of info, low'],
    ['nessus', 'rule=51192 & detail=x', 'cannot test `detail`'],
    ['nessus', 'tag=x', 'cannot test `tag`'],
    ['nessus', 'family=A & family=B', 'given twice'],
    ['nessus', 'title=(a+)+', 'repeats without bound'],
    ['nessus', 'cpe=openssh', 'is not a CPE'],
    ['nessus', 'compliance=passed', 'one of failed, warning, error'],
    ['nessus', 'family=', 'needs a value'],
    ['nessus', 'family=X  & title=Y', 'needs a value without surrounding spaces'],
    ['nuclei', 'color=red', 'is not a condition'],
    ['nessus', '5760a', 'nor conditions'],
  ] as const)('refuses %s:%s', (scanner, rule, problem) => {
    expect(ruleIdProblem(scanner, rule)).toContain(problem);
  });

  it('normalises the conditions it reads', () => {
    expect(
      parseScannerRule('nessus', 'family=Windows : Microsoft Bulletins & cpe=cpe:/o:microsoft:windows').rule,
    ).toEqual({
      scanner: 'nessus',
      form: 'conditions',
      conditions: [
        { kind: 'family', value: 'windows : microsoft bulletins' },
        { kind: 'cpe', value: 'o:microsoft:windows' },
      ],
    });
  });
});

describe('CPE names', () => {
  it('reads the 2.2 and 2.3 forms alike and compares product, then version', () => {
    expect(normalizeCpe('cpe:/a:openbsd:openssh:7.4')).toBe('a:openbsd:openssh:7.4');
    expect(normalizeCpe('cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*')).toBe('a:openbsd:openssh');
    expect(normalizeCpe('x-cpe:/a:tenable:nessus')).toBe('a:tenable:nessus');
    expect(normalizeCpe('openssh')).toBeNull();
    expect(cpeCovers('a:openbsd:openssh', 'a:openbsd:openssh:7.4')).toBe(true);
    expect(cpeCovers('a:openbsd:openssh', 'a:openbsd:openssh_portable')).toBe(false);
    expect(cpeCovers('a:openbsd:openssh:7', 'a:openbsd:openssh:7.4')).toBe(false);
  });
});
