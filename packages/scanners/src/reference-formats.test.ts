// Each scanner writes references its own way; every one must come out as a list of references,
// one URL each, never glued together and never split into words.
import { describe, expect, it } from 'vitest';
import { parseScan } from './index.ts';
import { referencesInText } from './reference-text.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

const nessus = (children: string, attrs = 'severity="2" pluginID="100" pluginName="Plugin"') =>
  parseScan(
    utf8(
      `<?xml version="1.0" ?><NessusClientData_v2><Report name="r"><ReportHost name="10.0.0.1"><HostProperties/>` +
        `<ReportItem port="80" svc_name="www" protocol="tcp" ${attrs} pluginFamily="Web Servers">${children}` +
        `</ReportItem></ReportHost></Report></NessusClientData_v2>`,
    ),
  ).findings[0]!;

describe('references of each scanner format', () => {
  it('Nessus see_also: one URL a line, and URLs within prose', () => {
    expect(
      nessus(
        '<see_also>https://httpd.apache.org/security/vulnerabilities_24.html\nhttps://www.tenable.com/cve/CVE-2021-41773</see_also>',
      ).references,
    ).toEqual([
      'https://httpd.apache.org/security/vulnerabilities_24.html',
      'https://www.tenable.com/cve/CVE-2021-41773',
    ]);
    const prose = nessus(
      '<see_also>For a much more detailed description of the issue, see the following (http://www.example.org/advisory.txt).\n' +
        'Microsoft has released a set of patches: https://docs.microsoft.com/en-us/security-updates/securitybulletins/2017/ms17-010.</see_also>',
    );
    expect(prose.references).toEqual([
      'http://www.example.org/advisory.txt',
      'https://docs.microsoft.com/en-us/security-updates/securitybulletins/2017/ms17-010',
    ]);
    // Prose that names no URL is one reference, not one per word.
    expect(
      nessus('<see_also>See the vendor advisory for   details.</see_also><xref>OSVDB:1234</xref>').references,
    ).toEqual(['See the vendor advisory for details.', 'OSVDB:1234']);
  });

  it('Nessus compliance see-also: URLs within the text', () => {
    const finding = nessus(
      '<compliance>true</compliance><cm:compliance-check-name xmlns:cm="http://www.nessus.org/cm">1.1 Ensure x</cm:compliance-check-name>' +
        '<cm:compliance-result xmlns:cm="http://www.nessus.org/cm">FAILED</cm:compliance-result>' +
        '<cm:compliance-see-also xmlns:cm="http://www.nessus.org/cm">See https://workbench.cisecurity.org/files/1234, and https://www.cisecurity.org/benchmark/azure.</cm:compliance-see-also>',
      'severity="3" pluginID="21157" pluginName="Unix Compliance Checks"',
    );
    expect(finding.occurrences[0]!.compliance?.seeAlso).toEqual([
      'https://workbench.cisecurity.org/files/1234',
      'https://www.cisecurity.org/benchmark/azure',
    ]);
  });

  it('Burp: the links of the references list', () => {
    const [finding] = parseScan(
      utf8(
        `<?xml version="1.0"?><issues burpVersion="2024.1"><issue><serialNumber>1</serialNumber><type>1049088</type>` +
          `<name>SQL injection</name><host ip="10.0.0.1">https://app.example</host><path>/</path><location>/</location>` +
          `<severity>High</severity><confidence>Certain</confidence><references><![CDATA[<ul><li><a href="https://portswigger.net/web-security/sql-injection">Web Security Academy: SQL injection</a></li>` +
          `<li><a href="https://portswigger.net/web-security/sql-injection/cheat-sheet">SQL injection cheat sheet</a></li></ul>]]></references></issue></issues>`,
      ),
    ).findings;
    expect(finding!.references).toEqual([
      'https://portswigger.net/web-security/sql-injection',
      'https://portswigger.net/web-security/sql-injection/cheat-sheet',
    ]);
  });

  it('Nuclei: a list, "- url" lines of old templates, and a comma-separated string', () => {
    const record = (reference: unknown, id: string) =>
      JSON.stringify({
        'template-id': id,
        info: { name: id, severity: 'medium', reference },
        type: 'http',
        host: 'https://app.example',
        'matched-at': 'https://app.example/',
      });
    const findings = parseScan(
      utf8(
        [
          record(
            ['https://nvd.nist.gov/vuln/detail/CVE-2021-44228', 'https://logging.apache.org/log4j/2.x/security.html'],
            'a',
          ),
          record('- https://example.org/one\n- https://example.org/two', 'b'),
          record('https://example.org/three, https://example.org/four', 'c'),
        ].join('\n'),
      ),
    ).findings;
    expect(findings.map((f) => f.references)).toEqual([
      ['https://nvd.nist.gov/vuln/detail/CVE-2021-44228', 'https://logging.apache.org/log4j/2.x/security.html'],
      ['https://example.org/one', 'https://example.org/two'],
      ['https://example.org/three', 'https://example.org/four'],
    ]);
  });

  it('Nmap vulners: a link per entry', () => {
    const xml =
      `<?xml version="1.0"?><nmaprun scanner="nmap" version="7.94"><host><status state="up"/><address addr="10.0.0.1" addrtype="ipv4"/>` +
      `<ports><port protocol="tcp" portid="22"><state state="open"/><service name="ssh" product="OpenSSH" version="7.4"/>` +
      `<script id="vulners" output="..."><table key="cpe:/a:openbsd:openssh:7.4"><table><elem key="id">CVE-2023-38408</elem>` +
      `<elem key="type">cve</elem><elem key="cvss">9.8</elem><elem key="is_exploit">false</elem></table></table></script></port></ports></host></nmaprun>`;
    const finding = parseScan(utf8(xml)).findings.find((f) => f.ruleId === 'CVE-2023-38408');
    expect(finding!.references).toEqual(['https://vulners.com/cve/CVE-2023-38408']);
  });

  it('keeps a URL whole: parentheses it opens, commas inside, and drops sentence punctuation after it', () => {
    expect(
      referencesInText('see https://en.wikipedia.org/wiki/Heartbleed_(bug). Then (https://a.example/x?y=1,2).'),
    ).toEqual(['https://en.wikipedia.org/wiki/Heartbleed_(bug)', 'https://a.example/x?y=1,2']);
    expect(referencesInText('https://a.example/1,https://a.example/2')).toEqual([
      'https://a.example/1',
      'https://a.example/2',
    ]);
    expect(referencesInText('  ')).toEqual([]);
  });
});

describe('old Nessus severities', () => {
  it('reads severity 1 with risk factor None (a Nessus 2/3 note) as informational', () => {
    const note = nessus(
      '<risk_factor>None</risk_factor><plugin_output>x</plugin_output>',
      'severity="1" pluginID="10107" pluginName="HTTP Server Type and Version"',
    );
    expect(note.severity).toBe('info');
    expect(note.occurrences[0]!.severity).toBe('info');
    expect(nessus('<risk_factor>Low</risk_factor>', 'severity="1" pluginID="1" pluginName="x"').severity).toBe('low');
  });
});
