import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PATTERN_CONDITION_KINDS,
  RULE_CONDITION_KINDS,
  ruleIdProblem,
  SCAN_FORMATS,
  SCANNER_RULE_PATTERN,
  type ScanFormat,
} from './index.ts';

const pattern = new RegExp(SCANNER_RULE_PATTERN);

/** What the server answers for `<scanner>:<rule>`: null when it takes it, else the problem. */
function serverProblem(text: string): string | null {
  const [scanner, ...rest] = text.split(':');
  return ruleIdProblem(scanner as ScanFormat, rest.join(':'));
}

/** Characters that matter to the grammar: separators, CPE punctuation, case, spaces of every kind. */
const piece = fc.constantFrom(
  ...['a', 'A', 'o', 'h', 'x', 'X', 'c', 'p', 'e', 'C', 'P', 'E', 'z', '0', '1', '7', '9'],
  ...[':', '/', '*', '-', '.', '_', '=', '&', ' & ', ' ', '  ', '\t', '\n', '\u00a0', 'é', '(', '+', ')'],
);
const text = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));

/** Values close to the valid ones of each condition, and mutations of them. */
const value = fc.oneof(
  text,
  fc.constantFrom(
    ...['Web Servers', 'Windows : Microsoft Bulletins', 'cpe:/a:openbsd:openssh', 'x-cpe:/a:tenable:nessus'],
    ...['cpe:2.3:a:openbsd:openssh:*:*', 'CPE:/o:microsoft:windows', 'cpe:/a:x:-', 'cpe:/a:x:-:y', 'cpe:/a:*:y'],
    ...['cpe:2.3:h:a:b', 'cpe:/a:x::', 'cpe:/b:x:y', 'CVE-2021-44228', 'cve-2021-1234', 'CVE-21-1', 'failed'],
    ...['Warning', 'ERROR', 'passed', 'exposure', 'Config.yaml', '-x', '^Apache', '(a+)+', '[', 'é'],
    ...['57608', '134217728', '5245344', 'open-port:443/tcp', 'ssl-cert:expired', 'High', 'info', 'critical '],
  ),
  fc.tuple(text, fc.constantFrom('cpe:/a:', 'cpe:2.3:o:', 'CVE-2024-', 'fail'), text).map((p) => p.join('')),
);
const condition = fc
  .tuple(fc.constantFrom(...RULE_CONDITION_KINDS, 'color', 'Family', 'family '), value)
  .map(([kind, v]) => `${kind}=${v}`);
const conditions = fc
  .tuple(fc.array(condition, { minLength: 1, maxLength: 3 }), fc.constantFrom(' & ', '&', ' &  ', ' & '))
  .map(([parts, separator]) => parts.join(separator));
const ruleId = fc.oneof(
  fc.integer({ min: 0, max: 99_999_999_999 }).map(String),
  fc.constant('134217728'),
  fc
    .tuple(fc.integer({ min: 0, max: 99_999 }), fc.nat(3), fc.constantFrom('tcp', 'udp', 'sctp', 'icmp'))
    .map(([port, zeros, protocol]) => `open-port:${'0'.repeat(zeros)}${port}/${protocol}`),
  fc.constantFrom('ssl-cert:expired', 'git-config', 'http-missing-security-headers:csp', 'open-port:', 'a b'),
  text,
);
const rule = fc
  .tuple(fc.constantFrom(...SCAN_FORMATS), fc.oneof(ruleId, conditions))
  .map(([scanner, r]) => `${scanner}:${r}`);

describe('SCANNER_RULE_PATTERN', () => {
  it('accepts what the server accepts, and the server what it accepts but for unusable title patterns', () => {
    fc.assert(
      fc.property(rule, (candidate) => {
        const problem = serverProblem(candidate);
        const matches = pattern.test(candidate);
        if (problem === null) expect(matches, candidate).toBe(true);
        // The one rule a pattern cannot state: a `title=` (`detail=`, `output=`) value must be a
        // title pattern that can run.
        else if (matches) expect(problem, candidate).toMatch(new RegExp(`^(${PATTERN_CONDITION_KINDS.join('|')})=: `));
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['burp:134217728', 'the type every Burp extension issue shares'],
    ['nmap:open-port:65536/tcp', 'a port above 65535'],
    ['nmap:open-port:0/tcp', 'port 0'],
    ['nessus:cpe=cpe:/a:x:-', 'a CPE without a product'],
    ['nessus:family=A & family=B', 'a condition given twice'],
    ['nessus:family=X  & title=Y', 'a value with spaces around it'],
    ['nessus:compliance=passed', 'a compliance result other than failed, warning, error'],
    ['nuclei:tag=a & color=red', 'an unknown condition'],
    ['burp:rule=134217728 & severity=high', 'the extension type as a rule= value'],
    ['nessus:severity=high & output=x', 'occurrence conditions alone'],
  ])('refuses %s (%s), as the server does', (candidate) => {
    expect(pattern.test(candidate)).toBe(false);
    expect(serverProblem(candidate)).not.toBeNull();
  });

  it('decides a long rule at once (no catastrophic backtracking)', () => {
    const long = [
      `nessus:family=${'a '.repeat(140)}`,
      `nessus:cpe=cpe:/a:${'x:'.repeat(140)}`,
      `nessus:title=${'a & '.repeat(70)}`,
      `nuclei:${'tag=a & '.repeat(36)}tag=`,
    ];
    for (const candidate of long) expect(typeof pattern.test(candidate)).toBe('boolean');
  });
});
