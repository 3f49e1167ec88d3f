import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseScan } from '@service/scanners';
import { describe, expect, it } from 'vitest';
import {
  buildTemplateMatchIndex,
  matchTemplates,
  measureCoverage,
  titlePatternProblem,
  type MatchableTemplate,
} from './index.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../../../shared/fixtures/scans');

const templates: MatchableTemplate[] = [
  { key: 'outdated-php', titlePatterns: { nessus: ['^PHP (\\d\\.x )?< ?\\d'] }, cwes: [1104] },
  { key: 'sql-injection', rules: ['burp:1049088'], cwes: [89] },
  { key: 'php-cgi-rce', rules: ['nessus:58988'], cves: ['CVE-2012-1823'] },
  { key: 'openssh-user-enum', cves: ['CVE-2018-15473'], titlePatterns: { nmap: ['^CVE-'] } },
  { key: 'smb-signing', rules: ['Nessus:57608'] },
  { key: 'second-sql', rules: ['burp:1049088'], cwes: [89], cves: ['CVE-2018-15473'] },
];
const index = buildTemplateMatchIndex(templates);
const finding = (scanner: string, ruleId: string, title: string, extra: { cves?: string[]; cwes?: number[] } = {}) => ({
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
    ).toEqual({
      templateKey: 'php-cgi-rce',
      matchedOn: 'rule',
      detail: 'nessus:58988',
    });
  });

  it('falls back to CVE, then CWE, then the title pattern of the finding scanner', () => {
    expect(
      matchTemplates(
        finding('nessus', '1', 'Something', { cves: ['CVE-1999-0001', 'cve-2012-1823'], cwes: [89] }),
        index,
      ),
    ).toEqual({ templateKey: 'php-cgi-rce', matchedOn: 'cve', detail: 'CVE-2012-1823' });
    expect(matchTemplates(finding('nessus', '1', 'Something', { cwes: [79, 89] }), index)).toEqual({
      templateKey: 'sql-injection',
      matchedOn: 'cwe',
      detail: 'CWE-89',
    });
    expect(matchTemplates(finding('nessus', '24907', 'php < 5.2.1 Multiple Vulnerabilities'), index)).toEqual({
      templateKey: 'outdated-php',
      matchedOn: 'titlePattern',
      detail: '/^PHP (\\d\\.x )?< ?\\d/',
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
    ).toEqual({ templateKey: 'openssh-user-enum', matchedOn: 'cve', detail: 'CVE-2018-15473' });
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
    });
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
  it('counts distinct non-informational findings per scanner and lists the unmatched ones', () => {
    const report = measureCoverage(
      [
        { ...finding('nessus', '57608', 'SMB Signing Disabled'), groupKey: '57608', severity: 'medium' },
        { ...finding('nessus', '57608', 'SMB Signing Disabled'), groupKey: '57608', severity: 'medium' },
        { ...finding('nessus', '10287', 'Traceroute Information'), groupKey: '10287', severity: 'info' },
        { ...finding('burp', '5244416', 'Cookie without HttpOnly flag set'), groupKey: '5244416', severity: 'low' },
      ],
      index,
    );
    expect(report).toEqual({
      byScanner: {
        nessus: { total: 1, matched: 1, byMatch: { rule: 1, cve: 0, cwe: 0, titlePattern: 0 }, unmatched: [] },
        burp: {
          total: 1,
          matched: 0,
          byMatch: { rule: 0, cve: 0, cwe: 0, titlePattern: 0 },
          unmatched: [
            { ruleId: '5244416', groupKey: '5244416', title: 'Cookie without HttpOnly flag set', severity: 'low' },
          ],
        },
      },
      total: 2,
      matched: 1,
      percent: 50,
    });
  });
});
