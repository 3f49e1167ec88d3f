import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyTemplateContent } from '@service/report-model';
import {
  findingOfScanResult,
  NMAP_SCRIPT_RULES,
  parseScan,
  VULNS_LIBRARY_SCRIPTS,
  type CompleteFinding,
  type NmapParseResult,
} from '@service/scanners';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildTemplateMatchIndex,
  itemsOfKind,
  loadLibrary,
  matchableTemplatesOfLibrary,
  matchTemplates,
  type Library,
  type TemplateMatchIndex,
} from './index.ts';

/**
 * The false matches issue 19 found on real scans, held against the shipped library: each must
 * stay fixed whatever templates and rules are added.
 */
const REPO_LIBRARY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../library');
const utf8 = (text: string) => new TextEncoder().encode(text);
let library: Library;
let index: TemplateMatchIndex;
beforeAll(async () => {
  library = await loadLibrary(REPO_LIBRARY);
  index = buildTemplateMatchIndex(matchableTemplatesOfLibrary(library));
});
const severityOf = (key: string | undefined) =>
  itemsOfKind(library, 'finding-template').find((t) => t.key === key)?.content.severity;

function burpIssue(type: string, name: string, severity: string): string {
  return (
    `<issue><serialNumber>1</serialNumber><type>${type}</type><name>${name}</name>` +
    `<host ip="10.0.0.1">https://app.example</host><path>/api</path><location>/api</location>` +
    `<severity>${severity}</severity><confidence>Certain</confidence></issue>`
  );
}

describe('the shipped library on the false matches of issue 19', () => {
  it("keeps Burp's informational CORS issue off the medium CORS misconfiguration text", () => {
    const { findings } = parseScan(
      utf8(
        `<?xml version="1.0"?><issues burpVersion="2024.1">` +
          burpIssue('2098688', 'Cross-origin resource sharing', 'Information') +
          burpIssue('2098689', 'Cross-origin resource sharing: arbitrary origin trusted', 'Information') +
          `</issues>`,
      ),
    );
    for (const finding of findings) {
      const match = matchTemplates(finding, index);
      expect(match?.templateKey, finding.title).not.toBe('cors-misconfiguration');
      expect(severityOf(match?.templateKey) ?? 'info', finding.title).toBe('info');
    }
    expect(matchTemplates(findings[0]!, index)?.templateKey).toBe('cors-policy-informational');
  });

  it('reports an open FTP port as an observation and the anonymous FTP login as the weakness', () => {
    const result = parseScan(
      utf8(
        `<?xml version="1.0"?><nmaprun start="1700000000"><host><status state="up"/>` +
          `<address addr="10.0.0.2" addrtype="ipv4"/><ports><port protocol="tcp" portid="21">` +
          `<state state="open"/><service name="ftp" product="vsftpd" version="2.3.4"/>` +
          `<script id="ftp-anon" output="Anonymous FTP login allowed (FTP code 230)&#xa;drwxr-xr-x 2 0 0 4096 pub"/>` +
          `</port></ports></host></nmaprun>`,
      ),
    ) as NmapParseResult;
    const port = result.findings.find((f) => f.ruleId === 'open-port:21/tcp')!;
    const portMatch = matchTemplates(port, index);
    expect(portMatch?.templateKey).not.toBe('ftp-cleartext-authentication');
    expect(severityOf(portMatch?.templateKey) ?? 'info').toBe('info');
    const anonymous = result.findings.find((f) => f.ruleId === 'ftp-anon')!;
    expect(matchTemplates(anonymous, index)).toMatchObject({ templateKey: 'anonymous-ftp', matchedOn: 'rule' });
    // The same from Nessus: the FTP server detection is information, never cleartext authentication.
    const detection = {
      source: { scanner: 'nessus' },
      ruleId: '10092',
      title: 'FTP Server Detection',
      severity: 'info',
    };
    expect(matchTemplates(detection, index)?.templateKey).not.toBe('ftp-cleartext-authentication');
  });

  it('lands each Nuclei missing-header result on its own header template', () => {
    const headers = [
      'strict-transport-security',
      'content-security-policy',
      'permissions-policy',
      'x-frame-options',
      'x-content-type-options',
      'x-permitted-cross-domain-policies',
      'referrer-policy',
      'clear-site-data',
      'cross-origin-embedder-policy',
      'cross-origin-opener-policy',
      'cross-origin-resource-policy',
      'access-control-allow-origin',
      'access-control-allow-credentials',
      'access-control-expose-headers',
      'access-control-allow-methods',
      'access-control-allow-headers',
      'access-control-max-age',
      'missing-content-type',
    ];
    const lines = headers.map((matcher) =>
      JSON.stringify({
        'template-id': 'http-missing-security-headers',
        info: { name: 'HTTP Missing Security Headers', severity: 'info', tags: ['misconfig', 'headers', 'generic'] },
        type: 'http',
        host: 'https://app.example',
        'matched-at': 'https://app.example/',
        'matcher-name': matcher,
      }),
    );
    const { findings } = parseScan(utf8(lines.join('\n')), { format: 'nuclei' });
    expect(findings).toHaveLength(18);
    const matched = findings.map((f: CompleteFinding) => matchTemplates(f, index));
    for (const [i, m] of matched.entries())
      expect(m, headers[i]).toMatchObject({
        matchedOn: 'rule',
        detail: `nuclei:http-missing-security-headers:${headers[i]}`,
      });
    // Several access-control headers share the CORS-headers template; the others each have their own.
    const perHeader = matched.filter((_, i) => !headers[i]!.startsWith('access-control-')).map((m) => m!.templateKey);
    expect(new Set(perHeader).size).toBe(perHeader.length);
  });

  it('keeps roll-ups that carry one famous CVE off that CVE’s template', () => {
    const windows = {
      source: { scanner: 'nessus' },
      ruleId: '151472',
      title: 'KB5004945: Windows 10 version 2004 / 20H2 / 21H1 Security Update (July 2021)',
      severity: 'critical',
      pluginFamily: 'Windows : Microsoft Bulletins',
      cves: ['CVE-2021-34527', 'CVE-2021-1675', 'CVE-2021-31979', 'CVE-2021-33739', 'CVE-2021-34448'],
    };
    expect(matchTemplates(windows, index)?.templateKey).toBe('microsoft-windows-cumulative-security-updates');
    const weblogic = {
      source: { scanner: 'nessus' },
      ruleId: '156941',
      title: 'Oracle WebLogic Server (January 2022 CPU)',
      severity: 'critical',
      pluginFamily: 'Misc.',
      cves: ['CVE-2021-44228', 'CVE-2022-21252', 'CVE-2022-21257', 'CVE-2022-21258', 'CVE-2022-21259'],
    };
    expect(matchTemplates(weblogic, index)?.templateKey).not.toBe('log4shell-cve-2021-44228');
    const log4j = { ...weblogic, title: 'Apache Log4j 2.x < 2.16.0 RCE', cves: ['CVE-2021-44228', 'CVE-2021-45046'] };
    expect(matchTemplates(log4j, index)?.templateKey).toBe('log4shell-cve-2021-44228');
  });

  it('gives each compliance result its own template', () => {
    const audit = (result: string, title: string) =>
      matchTemplates(
        {
          source: { scanner: 'nessus' },
          ruleId: '21157',
          title,
          severity: 'high',
          pluginFamily: 'Policy Compliance',
          checkType: 'compliance',
          occurrences: [{ compliance: { result } }],
        },
        index,
      )?.templateKey;
    expect(audit('WARNING', 'CIS Ubuntu Linux 22.04 LTS v1.0.0 L1 Server: checks to review (warning)')).toBe(
      'configuration-audit-warning',
    );
    expect(audit('FAILED', 'CIS Ubuntu Linux 22.04 LTS v1.0.0 L1 Server: failed checks')).toBe(
      'compliance-unix-audit-failed',
    );
    expect(audit('FAILED', 'Some Vendor Hardening Guide: failed checks')).toBe('configuration-audit-failed');
    expect(audit('ERROR', 'Unix Compliance Checks: checks that could not be evaluated (error)')).toBe(
      'configuration-audit-error',
    );
  });
});

describe('the Nmap rules of the shipped library', () => {
  it('name only rules the Nmap parser can emit, and every script condition it emits has a template', () => {
    const rules = matchableTemplatesOfLibrary(library)
      .flatMap((t) => t.rules ?? [])
      .filter((r) => r.startsWith('nmap:'))
      .map((r) => r.slice(5))
      .filter((r) => !/^(open-port:|[a-z]+=)/.test(r));
    const emitted = new Set([...NMAP_SCRIPT_RULES, ...VULNS_LIBRARY_SCRIPTS]);
    expect(rules.filter((r) => !emitted.has(r))).toEqual([]);
    const conditions = NMAP_SCRIPT_RULES.filter((r) => r.includes(':'));
    expect(conditions.filter((c) => !rules.includes(c))).toEqual([]);
  });
});

describe('known vulnerabilities in the shipped library', () => {
  const nuclei = (record: Record<string, unknown>) =>
    parseScan(
      utf8(
        JSON.stringify({ type: 'http', host: 'https://app.example', 'matched-at': 'https://app.example/', ...record }),
      ),
    ).findings[0]!;

  it('gives a CVE check without a template of its own the known-vulnerability text, never a class text by its tag', () => {
    const traversal = nuclei({
      'template-id': 'CVE-2099-41773',
      info: {
        name: 'Example HTTP Server 9.4.49 - Path Traversal',
        severity: 'high',
        tags: ['cve', 'lfi', 'traversal', 'example'],
        description:
          'A path traversal flaw in Example HTTP Server 9.4.49 lets an attacker read files outside the document root.',
        remediation: 'Upgrade Example HTTP Server to 9.4.51 or later.',
        classification: { 'cve-id': ['CVE-2099-41773'] },
      },
    });
    const match = matchTemplates(traversal, index);
    expect(match?.templateKey).toBe('known-vulnerability');
    const template = itemsOfKind(library, 'finding-template').find((t) => t.key === 'known-vulnerability')!;
    const finding = applyTemplateContent(findingOfScanResult(traversal), template.content).finding;
    expect(finding.title).toBe('Example HTTP Server 9.4.49 - Path Traversal');
    expect(finding.description).toContain('lets an attacker read files outside the document root.');
    expect(finding.description).toContain('(CVE-2099-41773)');
    expect(finding.remediation.startsWith('Upgrade Example HTTP Server to 9.4.51 or later.')).toBe(true);
    expect(`${finding.title}${finding.description}${finding.remediation}`).not.toContain('{{');
    // The same check without a CVE is a path traversal, by its tag.
    const generic = nuclei({
      'template-id': 'generic-traversal',
      info: { name: 'Traversal', severity: 'high', tags: ['lfi'] },
    });
    expect(matchTemplates(generic, index)?.templateKey).toBe('path-traversal');
  });

  it('names a backdoor a known vulnerability', () => {
    // Real output: Nmap 7.91's smb-double-pulsar-backdoor against a honeypot (fixtures/public, Apache-2.0).
    const file = path.resolve(REPO_LIBRARY, '../fixtures/public/nmap/savon-noir-python-libnmap-dionaea-scan.xml');
    const nmap = parseScan(readFileSync(file)).findings.find((f) => f.ruleId === 'smb-double-pulsar-backdoor');
    expect(nmap, 'the Nmap parser reports the backdoor').toBeDefined();
    expect(matchTemplates(nmap!, index)?.templateKey).toBe('known-vulnerability');
  });
});

describe('Burp extension issues of the shipped library', () => {
  it('take the TLS templates by their names (extension issues share one type, so only the name tells)', () => {
    const names: Array<[string, string]> = [
      ['SSLv3 is enabled', 'sslv2-sslv3-enabled'],
      ['RC4 cipher suites supported', 'tls-rc4-cipher-suites'],
      ['Sweet32: 64-bit block ciphers supported', 'tls-64-bit-block-ciphers-sweet32'],
      ['Heartbleed', 'heartbleed-cve-2014-0160'],
      ['Client-initiated renegotiation allowed', 'tls-client-initiated-renegotiation'],
    ];
    const { findings } = parseScan(
      utf8(
        `<?xml version="1.0"?><issues burpVersion="2024.1">` +
          names.map(([name]) => burpIssue('134217728', name, 'Medium')).join('') +
          `</issues>`,
      ),
    );
    expect(findings.map((f) => [f.title, matchTemplates(f, index)?.templateKey])).toEqual(names);
  });
});
