import { describe, expect, it } from 'vitest';
import { LIMITS, parseScan, type NessusParseResult } from './index.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

function nessus(hosts: string): NessusParseResult {
  const xml = `<?xml version="1.0" ?>
<NessusClientData_v2>
<Policy><policyName>p</policyName><Preferences><ServerPreferences><preference><name>ReportItem</name><value>tag</value></preference></ServerPreferences></Preferences></Policy>
<Report name="r" xmlns:cm="http://www.nessus.org/cm">
${hosts}
</Report>
</NessusClientData_v2>`;
  const result = parseScan(utf8(xml));
  if (result.format !== 'nessus') throw new Error('expected nessus');
  return result;
}

const host = (name: string, items: string, tags = '') =>
  `<ReportHost name="${name}"><HostProperties>${tags}</HostProperties>${items}</ReportHost>`;

const item = (attrs: string, children = '') => `<ReportItem ${attrs}>${children}</ReportItem>`;

describe('NessusParser', () => {
  it('groups compliance checks into one finding per audit and result, leaving out passed checks', () => {
    const check = (name: string, result: string, severity: number, audit = 'CIS_Ubuntu_22.04_L1_v1.0.0.audit') =>
      item(
        `port="0" svc_name="general" protocol="" severity="${severity}" pluginID="21157" ` +
          `pluginName="Unix Compliance Checks" pluginFamily="Policy Compliance"`,
        `<compliance>true</compliance><cm:compliance-check-name>${name}</cm:compliance-check-name>` +
          `<cm:compliance-check-id>id-${name.slice(0, 3)}</cm:compliance-check-id>` +
          `<cm:compliance-result>${result}</cm:compliance-result>` +
          `<cm:compliance-actual-value>actual ${result}</cm:compliance-actual-value>` +
          `<cm:compliance-policy-value>expected</cm:compliance-policy-value>` +
          `<cm:compliance-info>Why ${name} matters</cm:compliance-info>` +
          `<cm:compliance-solution>Fix ${name}</cm:compliance-solution>` +
          `<cm:compliance-see-also>https://workbench.cisecurity.org/files/1</cm:compliance-see-also>` +
          `<cm:compliance-reference>800-53|CM-6</cm:compliance-reference>` +
          (audit ? `<cm:compliance-audit-file>${audit}</cm:compliance-audit-file>` : '') +
          `<description>generic</description>`,
      );
    const result = nessus(
      host('10.0.0.1', check('1.1 Ensure A', 'FAILED', 3) + check('1.2 Ensure B', 'PASSED', 0)) +
        host(
          '10.0.0.2',
          check('1.1 Ensure A', 'FAILED', 3) +
            check('1.2 Ensure B', 'WARNING', 2) +
            check('1.3 Ensure C', 'FAILED', 2) +
            check('2.1 Ensure D', 'FAILED', 3, ''),
        ),
    );
    expect(result.findings.map((f) => [f.groupKey, f.title, f.severity, f.occurrences.length])).toEqual([
      ['21157|CIS_Ubuntu_22.04_L1_v1.0.0.audit|FAILED', 'CIS Ubuntu 22.04 L1 v1.0.0: failed checks', 'high', 3],
      [
        '21157|CIS_Ubuntu_22.04_L1_v1.0.0.audit|WARNING',
        'CIS Ubuntu 22.04 L1 v1.0.0: checks to review (warning)',
        'medium',
        1,
      ],
      ['21157|Unix Compliance Checks|FAILED', 'Unix Compliance Checks: failed checks', 'high', 1],
    ]);
    const failed = result.findings[0]!;
    expect(failed).toMatchObject({ ruleId: '21157', checkType: 'compliance', pluginFamily: 'Policy Compliance' });
    expect(failed.description).toBe(
      'The compliance audit CIS_Ubuntu_22.04_L1_v1.0.0.audit reported 2 checks with the result FAILED on 2 ' +
        'hosts. Each check is listed with the value the policy expects, the value found, its solution and the ' +
        'hosts it applies to.',
    );
    expect(failed.occurrences.map((o) => [o.asset.id, o.compliance?.checkName, o.severity])).toEqual([
      ['10.0.0.1', '1.1 Ensure A', 'high'],
      ['10.0.0.2', '1.1 Ensure A', 'high'],
      ['10.0.0.2', '1.3 Ensure C', 'medium'],
    ]);
    expect(failed.occurrences[0]!.compliance).toEqual({
      result: 'FAILED',
      checkId: 'id-1.1',
      checkName: '1.1 Ensure A',
      policyValue: 'expected',
      actualValue: 'actual FAILED',
      info: 'Why 1.1 Ensure A matters',
      solution: 'Fix 1.1 Ensure A',
      reference: '800-53|CM-6',
      seeAlso: ['https://workbench.cisecurity.org/files/1'],
      auditFile: 'CIS_Ubuntu_22.04_L1_v1.0.0.audit',
    });
    expect(result.stats.complianceResults).toEqual({ FAILED: 4, PASSED: 1, WARNING: 1 });
    expect(result.stats).toMatchObject({ occurrences: 5, findings: 3, hostsWithFindings: 2 });
  });

  it('carries the plugin family and the CPE names of a plugin', () => {
    const result = nessus(
      host(
        'h',
        item(
          'port="22" protocol="tcp" severity="2" pluginID="44081" pluginName="OpenSSH &lt; 5.7 Multiple Vulnerabilities" pluginFamily="Misc."',
          '<cpe>cpe:/a:openbsd:openssh</cpe>',
        ),
      ),
    );
    expect(result.findings[0]).toMatchObject({ pluginFamily: 'Misc.', cpes: ['cpe:/a:openbsd:openssh'] });
  });

  it('skips pluginID 0 placeholders and counts them', () => {
    const result = nessus(
      host(
        'h',
        item('port="22" protocol="tcp" severity="0" pluginID="0" pluginName=""') +
          item('port="22" protocol="tcp" severity="1" pluginID="5" pluginName="Five"'),
      ),
    );
    expect(result.stats).toMatchObject({ reportItems: 2, skippedPluginId0: 1, occurrences: 1, hostsWithFindings: 1 });
    expect(result.findings.map((f) => f.ruleId)).toEqual(['5']);
  });

  it('merges a plugin across hosts with max severity and a union of CVEs in first-seen order', () => {
    const vuln = (severity: number, cves: string[]) =>
      item(
        `port="443" svc_name="www" protocol="TCP" severity="${severity}" pluginID="777" pluginName="OpenSSL &lt; 3"`,
        cves.map((c) => `<cve>${c}</cve>`).join('') +
          '<cwe>CWE-94</cwe><cwe>20</cwe><xref>CWE:79</xref><xref>IAVA:2024-A-1</xref>' +
          '<see_also>https://a.example/1\nhttps://a.example/2</see_also><solution>n/a</solution>' +
          '<cvss_vector>CVSS2#AV:N/AC:L/Au:N/C:P/I:N/A:N</cvss_vector><cvss_base_score>5.0</cvss_base_score>' +
          '<cvss3_vector>AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N</cvss3_vector><cvss3_base_score>7.5</cvss3_base_score>' +
          '<cvss4_base_score>8.7</cvss4_base_score><cvss4_vector>CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:N/VA:N/SC:N/SI:N/SA:N</cvss4_vector>' +
          '<plugin_output>out</plugin_output><risk_factor>Medium</risk_factor>',
      );
    const result = nessus(
      host(
        'a',
        vuln(2, ['CVE-2024-0002', 'cve-2024-0001']),
        '<tag name="host-ip">10.0.0.1</tag><tag ' +
          'name="HOST_START_TIMESTAMP">1715652600</tag><tag ' +
          'name="mac-address">aa:bb\ncc:dd</tag>',
      ) + host('b', vuln(4, ['CVE-2024-0001', 'CVE-2024-0003'])),
    );
    const finding = result.findings[0]!;
    expect(finding.title).toBe('OpenSSL < 3');
    expect(finding.severity).toBe('critical');
    expect(finding.severityRaw).toBe('4');
    expect(finding.occurrences.map((o) => o.severity)).toEqual(['medium', 'critical']);
    expect(finding.cves).toEqual(['CVE-2024-0002', 'CVE-2024-0001', 'CVE-2024-0003']);
    expect(finding.cwes).toEqual([94, 20]);
    expect(finding.references).toEqual(['https://a.example/1', 'https://a.example/2', 'CWE:79', 'IAVA:2024-A-1']);
    expect(finding.remediation).toBeNull();
    expect(finding.cvss).toEqual([
      { version: '2.0', vector: 'AV:N/AC:L/Au:N/C:P/I:N/A:N', baseScore: 5 },
      { version: '3.0', vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', baseScore: 7.5 },
      { version: '4.0', vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:N/VA:N/SC:N/SI:N/SA:N', baseScore: 8.7 },
    ]);
    const first = finding.occurrences[0]!;
    expect(first).toMatchObject({
      port: 443,
      protocol: 'tcp',
      service: 'http',
      firstSeen: '2024-05-14T02:10:00.000Z',
      evidence: { output: 'out' },
    });
    expect(first.asset).toEqual({ id: 'a', ip: '10.0.0.1', mac: 'aa:bb' });
    expect(result.stats.riskFactors).toEqual({ Medium: 2 });
  });

  it('treats port 0 as host-level and keeps two items of one plugin on one port as two occurrences', () => {
    const result = nessus(
      host(
        'h',
        item(
          'port="0" svc_name="general" protocol="tcp" severity="0" pluginID="19506" ' +
            'pluginName="Nessus Scan Information"',
          '<plugin_output>Nessus version : 10.7.3\n</plugin_output>',
        ) +
          item(
            'port="80" svc_name="www?" protocol="tcp" severity="2" pluginID="9" pluginName="Nine"',
            '<plugin_output>one</plugin_output>',
          ) +
          item(
            'port="80" svc_name="www?" protocol="tcp" severity="2" pluginID="9" pluginName="Nine"',
            '<plugin_output>two</plugin_output>',
          ),
      ),
    );
    expect(result.scannerVersion).toBe('10.7.3');
    expect(result.findings[0]!.source).toEqual({ scanner: 'nessus', version: '10.7.3' });
    expect(result.findings[0]!.occurrences[0]!.port).toBeUndefined();
    expect(result.findings[0]!.occurrences[0]!.service).toBeUndefined();
    expect(result.findings[1]!.occurrences.map((o) => [o.port, o.service, o.evidence?.output])).toEqual([
      [80, 'http', 'one'],
      [80, 'http', 'two'],
    ]);
  });

  it('warns about a severity outside 0-4 and falls back to info', () => {
    const result = nessus(host('h', item('port="1" protocol="tcp" severity="9" pluginID="3" pluginName="Three"')));
    expect(result.findings[0]!.severity).toBe('info');
    expect(result.warnings[0]).toMatch(/severity "9"; treated as info/);
  });

  it('removes the indentation of re-indented exports from finding texts', () => {
    const result = nessus(
      host(
        'h',
        item(
          'port="1" protocol="tcp" severity="1" pluginID="3" pluginName="Three"',
          '<description>\n        First line\n        second line\n          indented\n    </description>',
        ),
      ),
    );
    expect(result.findings[0]!.description).toBe('First line\nsecond line\n  indented');
  });

  it('keeps a very large plugin output, truncated to the evidence cap', () => {
    const output = 'x'.repeat(6 * 1024 * 1024);
    const result = nessus(
      host(
        'h',
        item(
          'port="1" protocol="tcp" severity="1" pluginID="3" pluginName="Three"',
          `<plugin_output>${output}</plugin_output>`,
        ),
      ),
    );
    const kept = result.findings[0]!.occurrences[0]!.evidence?.output ?? '';
    expect(kept.length).toBeLessThanOrEqual(LIMITS.evidenceChars);
    expect(kept).toMatch(/\[truncated: \d+ more characters\]$/);
  });
});
