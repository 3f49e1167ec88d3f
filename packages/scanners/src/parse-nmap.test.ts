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
    const https = result.findings[0]!;
    const http = result.findings[1]!;
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
    expect(http.occurrences[0]!.asset.id).toBe('11:22:33:44:55:66');
    expect(http.occurrences[0]!.firstSeen).toBe('2023-11-14T22:13:20.000Z');
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
    expect(result.findings[0]!.occurrences[0]!.evidence?.output).toContain('[banner]\nSSH-2.0-OpenSSH_7.4');
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

const host = (address: string, ports: string, hostScripts = '') =>
  `<host starttime="1700000000" endtime="1700000100"><status state="up"/><address addr="${address}" addrtype="ipv4"/>` +
  `<ports>${ports}</ports>${hostScripts ? `<hostscript>${hostScripts}</hostscript>` : ''}</host>`;
const script = (id: string, output: string) => `<script id="${id}" output="${output.replace(/\n/g, '&#xa;')}"/>`;

describe('NmapParser NSE scripts', () => {
  it('turns scripts that report a weakness into findings with their output as evidence', () => {
    const result = nmap(
      host(
        '10.0.0.5',
        port(
          21,
          'open',
          '<service name="ftp"><cpe>cpe:/a:vsftpd:vsftpd:2.3.4</cpe></service>',
          script('ftp-anon', 'Anonymous FTP login allowed (FTP code 230)\n-rw-r--r-- 1 0 0 0 file'),
        ) +
          port(
            22,
            'open',
            '<service name="ssh"/>',
            script(
              'ssh2-enum-algos',
              '\n  kex_algorithms: (2)\n      curve25519-sha256\n      diffie-hellman-group1-sha1\n  encryption_algorithms: (2)\n      aes128-ctr\n      aes128-cbc\n  mac_algorithms: (1)\n      hmac-sha2-256',
            ),
          ),
        script('smb2-security-mode', '\n  3:1:1: \n    Message signing enabled but not required') +
          script(
            'smb-vuln-ms17-010',
            '\n  VULNERABLE:\n  Remote Code Execution vulnerability in Microsoft SMBv1 servers (ms17-010)\n    State: VULNERABLE\n    IDs:  CVE:CVE-2017-0143\n    Risk factor: HIGH\n    References:\n      https://technet.microsoft.com/en-us/library/security/ms17-010.aspx',
          ),
      ),
    );
    const scripts = result.findings.filter((f) => f.checkType === 'nse-script');
    expect(scripts.map((f) => [f.ruleId, f.matcherName, f.title, f.severity])).toEqual([
      ['smb2-security-mode', undefined, 'SMB signing not required', 'medium'],
      [
        'smb-vuln-ms17-010',
        undefined,
        'Remote Code Execution vulnerability in Microsoft SMBv1 servers (ms17-010)',
        'high',
      ],
      ['ftp-anon', undefined, 'Anonymous FTP login allowed', 'medium'],
      ['ssh2-enum-algos', undefined, 'SSH algorithms supported', 'info'],
      ['ssh2-enum-algos', 'weak-kex', 'SSH server supports weak key exchange algorithms', 'low'],
      ['ssh2-enum-algos', 'cbc-ciphers', 'SSH server supports CBC mode ciphers', 'low'],
    ]);
    const ftp = scripts.find((f) => f.ruleId === 'ftp-anon')!;
    expect(ftp.cpes).toEqual(['cpe:/a:vsftpd:vsftpd:2.3.4']);
    expect(ftp.occurrences[0]).toMatchObject({ port: 21, protocol: 'tcp', service: 'ftp' });
    expect(ftp.occurrences[0]!.evidence?.output).toContain('Anonymous FTP login allowed (FTP code 230)');
    expect(scripts[1]!.cves).toEqual(['CVE-2017-0143']);
    expect(scripts[1]!.occurrences[0]!.port).toBeUndefined();
    expect(scripts[4]!.occurrences[0]!.evidence?.output).toMatch(/^kex_algorithms: diffie-hellman-group1-sha1/);
    // The open ports stay findings of their own, with the script output as evidence.
    expect(result.findings.find((f) => f.ruleId === 'open-port:21/tcp')?.cpes).toEqual(['cpe:/a:vsftpd:vsftpd:2.3.4']);
    expect(result.stats.scriptOccurrences).toBe(6);
  });

  it('reads certificate expiry against the scan time, cipher grades and risky methods', () => {
    const result = nmap(
      host(
        '10.0.0.6',
        port(
          443,
          'open',
          '<service name="http" tunnel="ssl"/>',
          script(
            'ssl-cert',
            'Subject: commonName=a.example\nIssuer: commonName=a.example\nPublic Key type: rsa\nPublic Key bits: 1024\n' +
              'Signature Algorithm: sha1WithRSAEncryption\nNot valid before: 2020-01-01T00:00:00\nNot valid after:  2023-01-01T00:00:00',
          ) +
            script(
              'ssl-enum-ciphers',
              '\n  TLSv1.0: \n    ciphers: \n      TLS_RSA_WITH_3DES_EDE_CBC_SHA (rsa 2048) - C\n    warnings: \n      64-bit block cipher 3DES vulnerable to SWEET32 attack\n  TLSv1.2: \n    ciphers: \n      TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 (secp256r1) - A\n  least strength: C',
            ) +
            script(
              'http-methods',
              '\n  Supported Methods: GET HEAD POST OPTIONS TRACE\n  Potentially risky methods: TRACE',
            ),
        ),
      ),
    );
    const scripts = result.findings.filter((f) => f.checkType === 'nse-script');
    expect(scripts.map((f) => `${f.ruleId}:${f.matcherName ?? ''} ${f.severity}`)).toEqual([
      'ssl-cert: info',
      'ssl-cert:expired medium',
      'ssl-cert:self-signed medium',
      'ssl-cert:weak-signature medium',
      'ssl-cert:short-key medium',
      'ssl-enum-ciphers: info',
      'ssl-enum-ciphers:weak-ciphers medium',
      'ssl-enum-ciphers:deprecated-tls medium',
      'ssl-enum-ciphers:sweet32 medium',
      'http-methods:risky-methods low',
      'http-methods:trace low',
    ]);
  });

  it('gives no finding for scripts that report nothing wrong', () => {
    const result = nmap(
      host(
        '10.0.0.7',
        port(445, 'open', '', script('smb-vuln-ms10-061', 'false') + script('banner', 'SSH-2.0-OpenSSH_9.6')),
        script('smb2-security-mode', '\n  3:1:1: \n    Message signing enabled and required') +
          script(
            'smb-vuln-ms08-067',
            '\n  VULNERABLE:\n  Microsoft Windows system vulnerable\n    State: NOT VULNERABLE',
          ),
      ),
    );
    expect(result.findings.map((f) => f.ruleId)).toEqual(['open-port:445/tcp']);
  });

  it('imports the completed hosts of a file that ends early, with a warning', () => {
    const complete = host('10.0.0.8', port(22, 'open'));
    const cut = `<?xml version="1.0"?>\n<nmaprun start="1700000000">\n${complete}\n<host><status state="up"/><address addr="10.0.0.9" addrtype="ipv4"/><ports><port protocol="tcp" portid="80">`;
    const result = parseScan(utf8(cut));
    expect(result.findings.map((f) => f.occurrences.map((o) => o.asset.id))).toEqual([['10.0.0.8']]);
    expect(result.warnings.join('\n')).toMatch(/ends early .*1 hosts written completely are imported/);
    expect(() => parseScan(utf8('<?xml version="1.0"?>\n<nmaprun><host><status state="up"/>'))).toThrow(
      /ends inside <host>; it looks truncated/,
    );
  });
});
