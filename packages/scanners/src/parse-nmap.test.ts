import { describe, expect, it } from 'vitest';
import { parseScan, type NmapParseResult } from './index.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

function nmap(hosts: string): NmapParseResult {
  const result = parseScan(
    utf8(`<?xml version="1.0"?>\n<nmaprun scanner="nmap" start="1700000000" version="7.94">\n${hosts}\n</nmaprun>`),
  );
  if (result.format !== 'nmap') throw new Error('expected nmap');
  return result;
}

const port = (id: number, state: string, service = '', inner = '', protocol = 'tcp') =>
  `<port protocol="${protocol}" portid="${id}"><state state="${state}" reason="x"/>${service}${inner}</port>`;

describe('NmapParser', () => {
  it('ignores hosts that are not up and ports that are not exactly open', () => {
    const result = nmap(
      `<host><status state="down"/><address addr="10.0.0.1" ` +
        `addrtype="ipv4"/><ports>${port(22, 'open')}</ports></host>` +
        (`<host><status state="up"/><address addr="10.0.0.2" ` +
          `addrtype="ipv4"/><ports>${port(22, 'open')}${port(23, 'filtered')}${port(24, 'open|filtered')}${port(53, 'open', '', '', 'udp')}</ports></host>`),
    );
    expect(result.stats).toMatchObject({
      hostsTotal: 2,
      hostsUp: 1,
      hostsWithOpenPorts: 1,
      portStates: { open: 2, filtered: 1, 'open|filtered': 1 },
    });
    expect(result.findings.map((f) => [f.groupKey, f.title, f.ruleId])).toEqual([
      ['22/tcp', 'Open port: 22/tcp', 'open-port:22/tcp'],
      ['53/udp', 'Open port: 53/udp', 'open-port:53/udp'],
    ]);
  });

  it('identifies the asset by IPv4, else IPv6, else MAC, preferring a PTR host name', () => {
    const result = nmap(
      `<host starttime="1700000100"><status state="up"/><address addr="fe80::1" ` +
        `addrtype="ipv6"/><address addr="AA:BB:CC:DD:EE:FF" addrtype="mac"/>` +
        `<hostnames><hostname name="user.example" type="user"/><hostname name="ptr.example" type="PTR"/></hostnames>` +
        `<ports>${port(443, 'open', '<service name="http" tunnel="ssl" product="nginx" version="1.25"/>')}</ports>` +
        `<os><osmatch name="Linux 5.X" accuracy="90"/><osmatch name="Linux 6.X" accuracy="95"/></os></host>` +
        (`<host><status state="up"/><address addr="11:22:33:44:55:66" ` +
          `addrtype="mac"/><ports>${port(80, 'open')}</ports></host>`),
    );
    const [https, http] = result.findings;
    expect(https.occurrences[0]).toMatchObject({
      asset: {
        id: 'fe80::1',
        ip: 'fe80::1',
        mac: 'AA:BB:CC:DD:EE:FF',
        hostname: 'ptr.example',
        os: 'Linux 6.X (accuracy 95%)',
      },
      port: 443,
      protocol: 'tcp',
      service: 'https',
      firstSeen: '2023-11-14T22:15:00.000Z',
      evidence: { output: 'nginx 1.25' },
    });
    expect(http.occurrences[0].asset.id).toBe('11:22:33:44:55:66');
    expect(http.occurrences[0].firstSeen).toBe('2023-11-14T22:13:20.000Z');
  });

  it('turns vulners tables into findings and other scripts into evidence', () => {
    const entry = (id: string, cvss: string, type: string) =>
      `<table><elem key="id">${id}</elem><elem key="cvss">${cvss}</elem><elem ` +
      `key="type">${type}</elem><elem key="is_exploit">false</elem></table>`;
    const vulners =
      `<script id="vulners" output="..."><table ` +
      `key="cpe:/a:openbsd:openssh:7.4">${entry('CVE-2023-0001', '9.8', 'cve')}${entry('EDB-ID:1', '0.0', 'exploitdb')}</table></script>`;
    const banner = '<script id="banner" output="SSH-2.0-OpenSSH_7.4"/>';
    const host = (ip: string) =>
      `<host><status state="up"/><address addr="${ip}" ` +
      `addrtype="ipv4"/><ports>${port(22, 'open', '<service name="ssh"/>', vulners + banner)}</ports></host>`;
    const result = nmap(host('10.0.0.1') + host('10.0.0.2'));
    expect(
      result.findings.map((f) => [f.groupKey, f.severity, f.severityRaw, f.cves, f.checkType, f.occurrences.length]),
    ).toEqual([
      ['22/tcp', 'info', 'info', [], 'open-port', 2],
      ['CVE-2023-0001', 'critical', '9.8', ['CVE-2023-0001'], 'cve', 2],
      ['EDB-ID:1', 'info', '0.0', [], 'exploitdb', 2],
    ]);
    expect(result.findings[0].occurrences[0].evidence?.output).toContain('[banner]\nSSH-2.0-OpenSSH_7.4');
    expect(result.stats).toMatchObject({
      vulnersOccurrences: 4,
      openPortOccurrences: 2,
      nseScripts: { 'port:vulners': 2, 'port:banner': 2 },
    });
  });

  it('reads vulners entries from the text output of old script versions', () => {
    const output =
      '&#xa;  cpe:/a:openbsd:openssh:7.4: &#xa;    ' +
      '&#x9;CVE-2018-15919&#x9;5.0&#x9;https://vulners.com/cve/CVE-2018-15919';
    const result = nmap(
      `<host><status state="up"/><address addr="10.0.0.1" ` +
        `addrtype="ipv4"/><ports>${port(22, 'open', '', `<script id="vulners" output="${output}"/>`)}</ports></host>`,
    );
    expect(result.findings.map((f) => [f.groupKey, f.severity, f.cves])).toEqual([
      ['22/tcp', 'info', []],
      ['CVE-2018-15919', 'medium', ['CVE-2018-15919']],
    ]);
  });
});
