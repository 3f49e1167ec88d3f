import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseScan } from '@service/scanners';
import { describe, expect, it } from 'vitest';
import {
  buildTemplateMatchIndex,
  literalWeight,
  matchRefusal,
  matchTemplates,
  measureCoverage,
  titlePatternProblem,
  type MatchableFinding,
  type MatchableTemplate,
} from './index.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../../../shared/fixtures/scans');

const templates: MatchableTemplate[] = [
  { key: 'outdated-php', titlePatterns: { nessus: ['^PHP (\\d\\.x )?< ?\\d'] }, cwes: [1104], severity: 'high' },
  { key: 'sql-injection', rules: ['burp:1049088'], cwes: [89], severity: 'high' },
  { key: 'php-cgi-rce', rules: ['nessus:58988'], cves: ['CVE-2012-1823'], severity: 'critical' },
  { key: 'openssh-user-enum', cves: ['CVE-2018-15473'], titlePatterns: { nmap: ['^CVE-'] }, severity: 'medium' },
  { key: 'smb-signing', rules: ['Nessus:57608'], severity: 'medium' },
  { key: 'second-sql', rules: ['burp:1049088'], cwes: [89], cves: ['CVE-2018-15473'], severity: 'high' },
];
const index = buildTemplateMatchIndex(templates);
type Extra = Partial<Omit<MatchableFinding, 'source' | 'ruleId' | 'title'>>;
const finding = (scanner: string, ruleId: string, title: string, extra: Extra = {}) => ({
  source: { scanner },
  ruleId,
  title,
  ...extra,
});

describe('matchTemplates', () => {
  it('prefers the exact rule id over a CVE, a CWE and a title pattern', () => {
    expect(
      matchTemplates(
        finding('nessus', '58988', 'PHP < 5.3.12 / 5.4.2 CGI Query String Code Execution', {
          cves: ['CVE-2012-1823'],
          cwes: [1104],
        }),
        index,
      ),
    ).toEqual({ templateKey: 'php-cgi-rce', matchedOn: 'rule', detail: 'nessus:58988', confidence: 'high' });
  });

  it('falls back to CVE, then the title pattern of the finding scanner, then CWE', () => {
    expect(matchTemplates(finding('nessus', '1', 'Something', { cves: ['cve-2012-1823'], cwes: [89] }), index)).toEqual(
      {
        templateKey: 'php-cgi-rce',
        matchedOn: 'cve',
        detail: 'CVE-2012-1823',
        confidence: 'high',
      },
    );
    expect(matchTemplates(finding('nessus', '1', 'Something', { cwes: [79, 89] }), index)).toEqual({
      templateKey: 'sql-injection',
      matchedOn: 'cwe',
      detail: 'CWE-89',
      confidence: 'low',
    });
    expect(
      matchTemplates(finding('nessus', '24907', 'php < 5.2.1 Multiple Vulnerabilities', { cwes: [89] }), index),
    ).toEqual({
      templateKey: 'outdated-php',
      matchedOn: 'titlePattern',
      detail: '/^PHP (\\d\\.x )?< ?\\d/',
      confidence: 'medium',
    });
    // A pattern applies to its own scanner only.
    expect(matchTemplates(finding('burp', '24907', 'PHP < 5.2.1 Multiple Vulnerabilities'), index)).toBeNull();
  });

  it('breaks ties by index order: the template listed first wins', () => {
    expect(matchTemplates(finding('burp', '1049088', 'SQL injection'), index)?.templateKey).toBe('sql-injection');
    // Both openssh-user-enum and second-sql cover this CVE; openssh-user-enum is listed first.
    expect(
      matchTemplates(
        finding('nuclei', 'CVE-2018-15473', 'OpenSSH Username Enumeration', { cves: ['CVE-2018-15473'] }),
        index,
      ),
    ).toEqual({ templateKey: 'openssh-user-enum', matchedOn: 'cve', detail: 'CVE-2018-15473', confidence: 'high' });
  });

  it('compares the scanner name case-insensitively and the rule id exactly', () => {
    expect(matchTemplates(finding('Nessus', '57608', 'SMB Signing Disabled'), index)?.templateKey).toBe('smb-signing');
    expect(matchTemplates(finding('nessus', '057608', 'SMB Signing Disabled'), index)).toBeNull();
  });

  it('leaves out patterns that could take exponential time instead of running them', () => {
    const unsafe = buildTemplateMatchIndex([{ key: 'bad', titlePatterns: { nessus: ['^(a+)+$', '(unclosed'] } }]);
    expect(unsafe.skippedPatterns.map((s) => s.pattern)).toEqual(['^(a+)+$', '(unclosed']);
    expect(matchTemplates(finding('nessus', '1', `${'a'.repeat(40)}!`), unsafe)).toBeNull();
  });

  it('matches findings as the scanner parsers give them', () => {
    const { findings } = parseScan(readFileSync(path.join(FIXTURES, 'nessus/dd__nessus_v_unknown.xml')), {
      format: 'nessus',
    });
    const smb = findings.find((f) => f.ruleId === '57608');
    expect(smb && matchTemplates(smb, index)).toEqual({
      templateKey: 'smb-signing',
      matchedOn: 'rule',
      detail: 'nessus:57608',
      confidence: 'high',
    });
  });
});

describe('matchTemplates rules that generalise', () => {
  const general = buildTemplateMatchIndex([
    { key: 'generic-headers', rules: ['nuclei:http-missing-security-headers'], severity: 'info' },
    { key: 'hsts', rules: ['nuclei:http-missing-security-headers:strict-transport-security'], severity: 'low' },
    { key: 'linux-patches', rules: ['nessus:family=Ubuntu Local Security Checks'], severity: 'high', fallback: true },
    {
      key: 'outdated-software',
      titlePatterns: { nessus: ['^[A-Za-z][\\w .-]{1,60} < ?\\d'] },
      severity: 'high',
      fallback: true,
    },
    {
      key: 'openssh',
      titlePatterns: { nessus: ['^OpenSSH .*< ?\\d'] },
      rules: ['nmap:cpe=cpe:/a:openbsd:openssh & type=cve'],
      severity: 'medium',
    },
    { key: 'apache', rules: ['nessus:cpe=cpe:/a:apache:http_server'], severity: 'high' },
    { key: 'exposure', rules: ['nuclei:tag=exposure & tag=config'], severity: 'high' },
    { key: 'printnightmare', cves: ['CVE-2021-34527'], severity: 'high' },
    { key: 'log4shell', cves: ['CVE-2021-44228', 'CVE-2021-45046'], severity: 'critical' },
    { key: 'windows-updates', rules: ['nessus:family=Windows : Microsoft Bulletins'], severity: 'high' },
    { key: 'audit-failed', rules: ['nessus:compliance=failed'], severity: 'medium' },
    { key: 'audit-warning', rules: ['nessus:compliance=warning'], severity: 'low' },
  ]);

  it('tries <template-id>:<matcher> before <template-id>', () => {
    const header = (matcherName: string) =>
      matchTemplates(
        finding('nuclei', 'http-missing-security-headers', 'HTTP Missing Security Headers', {
          matcherName,
          severity: 'info',
        }),
        general,
      );
    expect(header('strict-transport-security')).toMatchObject({
      templateKey: 'hsts',
      detail: 'nuclei:http-missing-security-headers:strict-transport-security',
    });
    expect(header('permissions-policy')).toMatchObject({ templateKey: 'generic-headers', matchedOn: 'rule' });
  });

  it('prefers the specific template to the generic one whatever their order', () => {
    expect(
      matchTemplates(
        finding('nessus', '44081', 'OpenSSH < 5.7 Multiple Vulnerabilities', { severity: 'medium' }),
        general,
      ),
    ).toMatchObject({ templateKey: 'openssh', confidence: 'medium' });
    expect(matchTemplates(finding('nessus', '1', 'Foo Server < 2.0 RCE', { severity: 'high' }), general)).toMatchObject(
      {
        templateKey: 'outdated-software',
        confidence: 'low',
      },
    );
    expect(
      matchTemplates(
        finding('nessus', '2', 'Ubuntu 20.04 : curl vulnerabilities (USN-1)', {
          severity: 'medium',
          pluginFamily: 'Ubuntu Local Security Checks',
        }),
        general,
      ),
    ).toMatchObject({
      templateKey: 'linux-patches',
      matchedOn: 'family',
      detail: 'nessus:family=Ubuntu Local Security Checks',
    });
  });

  it('matches CPEs, Nuclei tags, plugin families and compliance results', () => {
    expect(
      matchTemplates(
        finding('nmap', 'CVE-2023-38408', 'CVE-2023-38408', {
          cpes: ['cpe:/a:openbsd:openssh:7.4'],
          checkType: 'cve',
          severity: 'high',
        }),
        general,
      ),
    ).toMatchObject({ templateKey: 'openssh', matchedOn: 'condition', confidence: 'high' });
    expect(
      matchTemplates(
        finding('nessus', '3', 'Apache Server Status page', {
          cpes: ['cpe:/a:apache:http_server'],
          severity: 'medium',
        }),
        general,
      ),
    ).toMatchObject({ templateKey: 'apache', matchedOn: 'cpe', confidence: 'low' });
    expect(
      matchTemplates(
        finding('nuclei', 'x-env', 'Env file', { tags: ['config', 'exposure', 'files'], severity: 'high' }),
        general,
      ),
    ).toMatchObject({ templateKey: 'exposure', matchedOn: 'condition' });
    expect(
      matchTemplates(finding('nuclei', 'x-env', 'Env file', { tags: ['exposure'], severity: 'high' }), general),
    ).toBeNull();
    const audit = (result: string) =>
      matchTemplates(
        finding('nessus', '21157', 'CIS Ubuntu: failed checks', {
          severity: 'high',
          occurrences: [{ compliance: { result } }],
        }),
        general,
      )?.templateKey;
    expect([audit('FAILED'), audit('WARNING')]).toEqual(['audit-failed', 'audit-warning']);
  });

  it('does not let a roll-up carrying one famous CVE take that CVE’s template', () => {
    const rollup = finding('nessus', '151472', 'KB5004945: Windows 10 July 2021 Security Update', {
      severity: 'critical',
      pluginFamily: 'Windows : Microsoft Bulletins',
      cves: ['CVE-2021-34527', 'CVE-2021-1675', 'CVE-2021-33739', 'CVE-2021-31979'],
    });
    expect(matchTemplates(rollup, general)).toMatchObject({ templateKey: 'windows-updates', matchedOn: 'family' });
    expect(
      matchTemplates(
        finding('nessus', '4', 'Apache Log4j < 2.16.0 RCE', {
          cves: ['CVE-2021-44228', 'CVE-2021-45046'],
          severity: 'critical',
        }),
        general,
      ),
    ).toEqual({
      templateKey: 'log4shell',
      matchedOn: 'cve',
      detail: 'CVE-2021-44228 (2 of 2 CVEs)',
      confidence: 'high',
    });
    expect(
      matchTemplates(
        finding('nessus', '5', 'Oracle WebLogic (Jan 2022 CPU)', {
          cves: ['CVE-2021-44228', 'CVE-2022-1', 'CVE-2022-2', 'CVE-2022-3'],
          severity: 'critical',
        }),
        general,
      ),
    ).toBeNull();
  });

  it('keeps observations and informational results off weakness templates, and CWE matches within one band', () => {
    const open = buildTemplateMatchIndex([
      {
        key: 'ftp-cleartext',
        rules: ['nmap:open-port:21/tcp'],
        titlePatterns: { nessus: ['FTP'] },
        cwes: [319],
        severity: 'medium',
      },
      { key: 'service', titlePatterns: { nmap: ['^Open port'] }, severity: 'info' },
      { key: 'cors', rules: ['burp:2098689'], severity: 'medium' },
      { key: 'cors-info', titlePatterns: { burp: ['^Cross-origin resource sharing'] }, severity: 'info' },
    ]);
    expect(
      matchTemplates(
        finding('nmap', 'open-port:21/tcp', 'Open port: 21/tcp', { severity: 'info', checkType: 'open-port' }),
        open,
      ),
    ).toMatchObject({ templateKey: 'service' });
    expect(matchTemplates(finding('nessus', '10092', 'FTP Server Detection', { severity: 'info' }), open)).toBeNull();
    expect(
      matchTemplates(finding('burp', '2098689', 'Cross-origin resource sharing', { severity: 'info' }), open),
    ).toMatchObject({
      templateKey: 'cors-info',
    });
    expect(matchTemplates(finding('nessus', '9', 'X', { severity: 'critical', cwes: [319] }), open)).toBeNull();
    expect(matchTemplates(finding('nessus', '9', 'X', { severity: 'high', cwes: [319] }), open)).toMatchObject({
      templateKey: 'ftp-cleartext',
      matchedOn: 'cwe',
    });
    expect(matchRefusal({ severity: 'info' }, 'low', 'rule')).toBeNull();
    expect(matchRefusal({ severity: 'info' }, 'medium', 'rule')).toMatch(/informational result takes no medium/);
  });
});

describe('literalWeight', () => {
  it.each([
    ['^PHP (\\d\\.x )?< ?\\d', 5],
    ['^Apache Tomcat .* < ', 17],
    ['^(?!PHP )[A-Za-z][\\w .]{1,80} < ?\\d', 2],
    ['^(Foo|Ba)r', 3],
    ['SSL\\.', 4],
  ])('%s weighs %i', (pattern, weight) => {
    expect(literalWeight(pattern)).toBe(weight);
  });
});

describe('titlePatternProblem', () => {
  it.each(['^PHP (5\\.x )?< ?\\d', '\\d+\\.\\d+', '^(foo|bar)+ baz', '[a+]+', '(ab){3}', '^Missing .* header$'])(
    'accepts %s',
    (pattern) => {
      expect(titlePatternProblem(pattern)).toBeNull();
    },
  );

  it.each([
    ['(a+)+', 'repeat a group that itself repeats without bound'],
    ['(\\w+\\s?)*$', 'repeat a group that itself repeats without bound'],
    ['((ab)*c)+', 'repeat a group that itself repeats without bound'],
    ['(a{2,})*', 'repeat a group that itself repeats without bound'],
    ['(a)\\1', 'back-references'],
    ['(?<x>a)\\k<x>', 'back-references'],
    ['(', 'does not compile'],
    ['', 'must not be empty'],
    ['a'.repeat(301), 'at most 300 characters'],
  ])('refuses %s', (pattern, problem) => {
    expect(titlePatternProblem(pattern)).toContain(problem);
  });
});

describe('measureCoverage', () => {
  it('counts distinct non-informational findings and rules per scanner, lists the unmatched ones and suspects', () => {
    const report = measureCoverage(
      [
        { ...finding('nessus', '57608', 'SMB Signing Disabled'), groupKey: '57608', severity: 'medium' },
        { ...finding('nessus', '57608', 'SMB Signing Disabled'), groupKey: '57608', severity: 'medium' },
        { ...finding('nessus', '10287', 'Traceroute Information'), groupKey: '10287', severity: 'info' },
        { ...finding('nessus', '24907', 'PHP < 5.2.1'), groupKey: '24907', severity: 'low' },
        { ...finding('burp', '5244416', 'Cookie without HttpOnly flag set'), groupKey: '5244416', severity: 'low' },
      ],
      index,
    );
    expect(report.byScanner.nessus).toMatchObject({
      total: 2,
      matched: 2,
      suspect: 1,
      rules: { total: 2, matched: 2, suspect: 1 },
      unmatched: [],
    });
    expect(report.byScanner.nessus!.byMatch).toMatchObject({ rule: 1, titlePattern: 1, cve: 0 });
    expect(report.byScanner.burp).toMatchObject({
      total: 1,
      matched: 0,
      rules: { total: 1, matched: 0, suspect: 0 },
      unmatched: [
        { ruleId: '5244416', groupKey: '5244416', title: 'Cookie without HttpOnly flag set', severity: 'low' },
      ],
    });
    expect(report).toMatchObject({ total: 3, matched: 2, percent: 66.7, suspect: 1 });
    expect(report.rules).toEqual({ total: 3, matched: 2, suspect: 1, percent: 66.7, suspectPercent: 33.3 });
    expect(report.matches.find((m) => m.rule === '24907')).toMatchObject({
      templateKey: 'outdated-php',
      suspicions: ['scanner says low, template is high'],
    });
  });
});
