import { normalizeCve } from './normalize-identifiers.ts';
import type { Severity } from '@service/report-model';

/**
 * What one NSE script's output reports, read from the text Nmap writes in `script@output`.
 * Scripts that report a weakness give a finding of their own (issue 19, item 5); a few purely
 * informational scripts give an info finding, because the finding library describes them. Every
 * other script stays evidence on its open port, as SCANNERS.md section 4 describes.
 */
export interface ScriptResult {
  /** the script id: the finding's rule id */
  scriptId: string;
  /** which weakness of the script's output this is (`expired`, `weak-mac`, ...): the matcher name */
  condition?: string;
  title: string;
  severity: Severity;
  cves?: string[];
  references?: string[];
  /** the part of the output that shows it, when the script reports several things */
  detail?: string;
}

export interface ScriptContext {
  /** when the host was scanned; certificate expiry is judged against it */
  scanTime: Date;
}

type Interpreter = (output: string, context: ScriptContext) => Omit<ScriptResult, 'scriptId'>[];

const lines = (output: string): string[] => output.split('\n');

/** One result, when `test` matches the output. */
const when =
  (test: RegExp, title: string, severity: Severity, condition?: string): Interpreter =>
  (output) =>
    test.test(output) ? [{ title, severity, ...(condition ? { condition } : {}) }] : [];

/** One result for any output that is not an error message: scripts that only print when they find something. */
const whenOutput =
  (title: string, severity: Severity): Interpreter =>
  (output) =>
    output.trim() !== '' && !looksLikeError(output) ? [{ title, severity }] : [];

function looksLikeError(output: string): boolean {
  return /^\s*(ERROR|Couldn't|Could not|Failed|No [a-z ]+ found|Not vulnerable)\b/i.test(output);
}

/**
 * Scripts of Nmap's `vulns` library print `VULNERABLE:` blocks with `State:`, `IDs:`, `Risk
 * factor:` and `References:`; one result per script with the most severe block. `NOT VULNERABLE`
 * is no finding.
 */
function vulnsLibrary(output: string): Omit<ScriptResult, 'scriptId'>[] {
  const states = [...output.matchAll(/State: ((?:LIKELY )?VULNERABLE(?: \([^)]*\))?|NOT VULNERABLE)/g)];
  if (!states.some((s) => !s[1]!.startsWith('NOT'))) return [];
  const all = lines(output);
  const header = all.findIndex((l) => /\bVULNERABLE:\s*$/.test(l));
  const title = (header >= 0 ? all[header + 1]?.trim() : undefined) || 'Vulnerability reported by an Nmap script';
  let severity: Severity = 'high';
  const risks = [...output.matchAll(/Risk factor: (HIGH|MEDIUM|LOW|CRITICAL)/gi)].map((m) => m[1]!.toLowerCase());
  if (risks.length > 0) {
    const order: Severity[] = ['low', 'medium', 'high', 'critical'];
    severity = risks.reduce<Severity>(
      (max, r) => (order.indexOf(r as Severity) > order.indexOf(max) ? (r as Severity) : max),
      'low',
    );
  }
  const cves = new Set<string>();
  for (const m of output.matchAll(/\bCVE:?(CVE-\d{4}-\d{4,})\b/g)) {
    const cve = normalizeCve(m[1]!);
    if (cve !== null) cves.add(cve);
  }
  const references = new Set<string>();
  for (const m of output.matchAll(/https?:\/\/[^\s<>"]+/g)) references.add(m[0]);
  return [
    {
      title: title.length > 200 ? `${title.slice(0, 197)}...` : title,
      severity,
      ...(cves.size > 0 ? { cves: [...cves] } : {}),
      ...(references.size > 0 ? { references: [...references].slice(0, 50) } : {}),
    },
  ];
}

/** `ssl-enum-ciphers`: the grade, the deprecated protocols and the cipher warnings it prints. */
function sslEnumCiphers(output: string): Omit<ScriptResult, 'scriptId'>[] {
  const results: Omit<ScriptResult, 'scriptId'>[] = [
    { title: 'TLS protocol versions and cipher suites supported', severity: 'info' },
  ];
  const grade = /least strength: ([A-F])\b/.exec(output)?.[1];
  if (grade !== undefined && grade !== 'A') {
    results.push({
      condition: 'weak-ciphers',
      title: `TLS service offers weak cipher suites (least strength ${grade})`,
      severity: grade === 'B' ? 'low' : grade === 'C' ? 'medium' : 'high',
    });
  }
  const protocols = new Set([...output.matchAll(/^\s{1,4}(SSLv3|TLSv1\.0|TLSv1\.1):\s*$/gm)].map((m) => m[1]!));
  if (protocols.has('SSLv3'))
    results.push({ condition: 'sslv3', title: 'SSL 3.0 protocol supported', severity: 'medium' });
  const old = ['TLSv1.0', 'TLSv1.1'].filter((p) => protocols.has(p));
  if (old.length > 0)
    results.push({
      condition: 'deprecated-tls',
      title: `Deprecated TLS protocol versions supported (${old.join(', ').replace(/v/g, ' ')})`,
      severity: 'medium',
    });
  if (/SWEET32|64-bit block cipher/i.test(output))
    results.push({ condition: 'sweet32', title: '64-bit block cipher suites supported (SWEET32)', severity: 'medium' });
  if (/_RC4_|Broken cipher RC4/.test(output))
    results.push({ condition: 'rc4', title: 'RC4 cipher suites supported', severity: 'medium' });
  if (/_WITH_NULL_|_NULL_WITH_/.test(output))
    results.push({ condition: 'null-ciphers', title: 'NULL cipher suites supported', severity: 'high' });
  if (/_anon_/i.test(output))
    results.push({ condition: 'anonymous-ciphers', title: 'Anonymous cipher suites supported', severity: 'medium' });
  if (/_EXPORT/.test(output))
    results.push({ condition: 'export-ciphers', title: 'EXPORT cipher suites supported', severity: 'medium' });
  return results;
}

/** `ssl-cert`: the certificate as information, and its expiry, signature, key size and issuer. */
function sslCert(output: string, context: ScriptContext): Omit<ScriptResult, 'scriptId'>[] {
  const results: Omit<ScriptResult, 'scriptId'>[] = [{ title: 'TLS certificate information', severity: 'info' }];
  const notAfter = /Not valid after:\s*(\S+)/.exec(output)?.[1];
  const expiry =
    notAfter === undefined ? Number.NaN : Date.parse(notAfter.replace(/^(\d{4}-\d\d-\d\d)$/, '$1T00:00:00Z'));
  if (!Number.isNaN(expiry)) {
    const days = (expiry - context.scanTime.getTime()) / 86_400_000;
    if (days < 0)
      results.push({
        condition: 'expired',
        title: 'TLS certificate expired',
        severity: 'medium',
        detail: `Not valid after: ${notAfter}`,
      });
    else if (days < 30)
      results.push({
        condition: 'expiring-soon',
        title: 'TLS certificate expires within 30 days',
        severity: 'low',
        detail: `Not valid after: ${notAfter}`,
      });
  }
  const subject = /^Subject: (.+)$/m.exec(output)?.[1]?.trim();
  const issuer = /^Issuer: (.+)$/m.exec(output)?.[1]?.trim();
  if (subject !== undefined && subject === issuer)
    results.push({ condition: 'self-signed', title: 'Self-signed TLS certificate', severity: 'medium' });
  const signature = /Signature Algorithm: (\S+)/.exec(output)?.[1];
  if (signature !== undefined && /^(md2|md4|md5|sha1)With/i.test(signature))
    results.push({
      condition: 'weak-signature',
      title: `TLS certificate signed with a weak hash algorithm (${signature})`,
      severity: 'medium',
    });
  const keyType = /Public Key type: (\S+)/.exec(output)?.[1]?.toLowerCase();
  const bits = Number(/Public Key bits: (\d+)/.exec(output)?.[1]);
  if (keyType === 'rsa' && Number.isFinite(bits) && bits > 0 && bits < 2048)
    results.push({
      condition: 'short-key',
      title: `TLS certificate with a short RSA key (${bits} bits)`,
      severity: 'medium',
    });
  return results;
}

const SSH_WEAK: ReadonlyArray<{ section: string; condition: string; title: string; test: RegExp }> = [
  {
    section: 'kex_algorithms',
    condition: 'weak-kex',
    title: 'SSH server supports weak key exchange algorithms',
    test: /^(diffie-hellman-group1-sha1|diffie-hellman-group-exchange-sha1|diffie-hellman-group14-sha1|rsa1024-sha1|gss-(gex|group1|group14)-sha1-.*)$/,
  },
  {
    section: 'server_host_key_algorithms',
    condition: 'weak-hostkey',
    title: 'SSH server offers a DSA host key',
    test: /^ssh-dss(-cert-v01@openssh\.com)?$/,
  },
  {
    section: 'encryption_algorithms',
    condition: 'cbc-ciphers',
    title: 'SSH server supports CBC mode ciphers',
    test: /-cbc(@.*)?$/,
  },
  {
    section: 'encryption_algorithms',
    condition: 'weak-ciphers',
    title: 'SSH server supports weak ciphers',
    test: /^(arcfour.*|none|des(-.*)?|blowfish-.*|cast128-.*)$/,
  },
  {
    section: 'mac_algorithms',
    condition: 'weak-mac',
    title: 'SSH server supports weak MAC algorithms',
    test: /^(hmac-md5.*|hmac-sha1-96.*|umac-64(-etm)?@openssh\.com|hmac-ripemd160.*|none)$/,
  },
  {
    section: 'mac_algorithms',
    condition: 'sha1-mac',
    title: 'SSH server supports SHA-1 HMAC algorithms',
    test: /^hmac-sha1(-etm@openssh\.com)?$/,
  },
];

/** `ssh2-enum-algos`: the algorithm lists, and one result per kind of weak algorithm offered. */
function ssh2EnumAlgos(output: string): Omit<ScriptResult, 'scriptId'>[] {
  const sections = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of lines(output)) {
    const header = /^\s*([a-z_]+_algorithms): \(\d+\)\s*$/.exec(line);
    if (header !== null) {
      current = [];
      sections.set(header[1]!, current);
    } else if (current !== null && line.trim() !== '') {
      current.push(line.trim());
    }
  }
  if (sections.size === 0) return [];
  const results: Omit<ScriptResult, 'scriptId'>[] = [{ title: 'SSH algorithms supported', severity: 'info' }];
  for (const weak of SSH_WEAK) {
    const found = (sections.get(weak.section) ?? []).filter((name) => weak.test.test(name));
    if (found.length > 0)
      results.push({
        condition: weak.condition,
        title: weak.title,
        severity: 'low',
        detail: `${weak.section}: ${found.join(', ')}`,
      });
  }
  return results;
}

/** `http-methods`: the methods Nmap calls potentially risky. */
function httpMethods(output: string): Omit<ScriptResult, 'scriptId'>[] {
  const risky = /Potentially risky methods:\s*(.+)/.exec(output)?.[1]?.trim().split(/\s+/) ?? [];
  const results: Omit<ScriptResult, 'scriptId'>[] = [];
  if (risky.length > 0)
    results.push({
      condition: 'risky-methods',
      title: `Potentially risky HTTP methods allowed (${risky.join(', ')})`,
      severity: 'low',
    });
  if (risky.includes('TRACE'))
    results.push({ condition: 'trace', title: 'HTTP TRACE method enabled', severity: 'low' });
  return results;
}

function smbSecurityMode(output: string): Omit<ScriptResult, 'scriptId'>[] {
  const results: Omit<ScriptResult, 'scriptId'>[] = [];
  if (
    /message_signing: (disabled|supported)/i.test(output) ||
    /signing (enabled but not required|disabled)/i.test(output)
  )
    results.push({ title: 'SMB signing not required', severity: 'medium' });
  if (/account_used: guest/i.test(output))
    results.push({ condition: 'guest', title: 'SMB guest access allowed', severity: 'medium' });
  return results;
}

function rdpEnumEncryption(output: string): Omit<ScriptResult, 'scriptId'>[] {
  const results: Omit<ScriptResult, 'scriptId'>[] = [];
  if (/(Native RDP|SSL|RDSTLS): SUCCESS/.test(output))
    results.push({ title: 'RDP does not require Network Level Authentication', severity: 'medium' });
  if (/Native RDP: SUCCESS/.test(output))
    results.push({
      condition: 'standard-security',
      title: 'RDP allows the standard RDP security layer',
      severity: 'medium',
    });
  return results;
}

function smbEnumShares(output: string): Omit<ScriptResult, 'scriptId'>[] {
  return /Anonymous access: (READ|WRITE)/.test(output)
    ? [{ title: 'SMB shares accessible without authentication', severity: 'medium' }]
    : [];
}

/** Scripts that only print something when the service answered them. */
const ANSWERED: Readonly<Record<string, [string, Severity]>> = {
  'dns-zone-transfer': ['DNS zone transfer allowed', 'medium'],
  'ntp-monlist': ['NTP monlist command enabled', 'medium'],
  finger: ['Finger service discloses user information', 'medium'],
  'memcached-info': ['Memcached accessible without authentication', 'medium'],
  'mqtt-subscribe': ['MQTT broker accepts unauthenticated subscriptions', 'high'],
  'nfs-ls': ['NFS export readable by the scanner', 'high'],
  'rsync-list-modules': ['rsync modules listed without authentication', 'medium'],
  'sip-enum-users': ['SIP user names can be enumerated', 'medium'],
  'http-wordpress-users': ['WordPress user names can be enumerated', 'medium'],
  'http-drupal-enum-users': ['Drupal user names can be enumerated', 'medium'],
  'http-apache-server-status': ['Apache server-status page exposed', 'medium'],
  'dns-service-discovery': ['mDNS / DNS service discovery answers remote queries', 'medium'],
  'modbus-discover': ['Industrial control protocol exposed (Modbus)', 'high'],
  's7-info': ['Industrial control protocol exposed (Siemens S7)', 'high'],
  'bacnet-info': ['Industrial control protocol exposed (BACnet)', 'high'],
  'enip-info': ['Industrial control protocol exposed (EtherNet/IP)', 'high'],
  'fox-info': ['Industrial control protocol exposed (Niagara Fox)', 'high'],
  'omron-info': ['Industrial control protocol exposed (Omron FINS)', 'high'],
  'pcworx-info': ['Industrial control protocol exposed (PC Worx)', 'high'],
  'iec-identify': ['Industrial control protocol exposed (IEC 60870-5-104)', 'high'],
  // Informational: the finding library has a template that describes them.
  'dns-nsid': ['DNS server discloses its identity (NSID)', 'info'],
  'smtp-commands': ['SMTP server commands and banner', 'info'],
  nbstat: ['NetBIOS name information', 'info'],
  'nfs-showmount': ['NFS exports listed', 'info'],
  'ntp-info': ['NTP server information', 'info'],
  'http-robots.txt': ['robots.txt file found', 'info'],
  rpcinfo: ['RPC portmapper lists RPC services', 'info'],
  'smb-os-discovery': ['SMB operating system and host information', 'info'],
  'smb2-capabilities': ['SMB2 capabilities', 'info'],
  'ssh-hostkey': ['SSH host keys', 'info'],
  'ike-version': ['IKE (IPsec VPN) service detected', 'info'],
  'upnp-info': ['UPnP service information', 'info'],
  'broadcast-upnp-info': ['UPnP service information', 'info'],
  'vnc-info': ['VNC server information', 'info'],
  'snmp-info': ['SNMP agent information', 'info'],
  'snmp-sysdescr': ['SNMP agent information', 'info'],
  'snmp-interfaces': ['SNMP agent information', 'info'],
  'snmp-processes': ['SNMP agent information', 'info'],
  'snmp-netstat': ['SNMP agent information', 'info'],
  'snmp-win32-software': ['SNMP agent information', 'info'],
};

const INTERPRETERS: Readonly<Record<string, Interpreter>> = {
  'ftp-anon': when(/Anonymous FTP login allowed/i, 'Anonymous FTP login allowed', 'medium'),
  'smb-security-mode': smbSecurityMode,
  'smb2-security-mode': smbSecurityMode,
  'smb-protocols': when(/SMBv1|NT LM 0\.12/, 'SMB version 1 protocol enabled', 'medium'),
  'smb-enum-shares': smbEnumShares,
  'ssl-enum-ciphers': sslEnumCiphers,
  'ssl-cert': sslCert,
  'ssh2-enum-algos': ssh2EnumAlgos,
  'http-methods': httpMethods,
  sslv2: when(/SSLv2 supported/i, 'SSL 2.0 protocol supported', 'high'),
  sshv1: when(/Server supports SSHv1/i, 'SSH protocol version 1 supported', 'high'),
  'dns-recursion': when(/Recursion appears to be enabled/i, 'DNS server allows recursive queries', 'medium'),
  'smtp-open-relay': when(/Server is an open relay/i, 'SMTP server is an open relay', 'high'),
  'snmp-brute': when(/Valid credentials/i, 'SNMP community string guessed', 'high'),
  'x11-access': when(
    /X server access is granted/i,
    'X11 server accepts connections without authentication',
    'critical',
  ),
  'dns-cache-snoop': (output) =>
    /\b([1-9]\d*) of \d+ tested domains are cached/.test(output)
      ? [{ title: 'DNS cache snooping possible', severity: 'medium' }]
      : [],
  'smtp-enum-users': (output) =>
    output.trim() !== '' && !/Couldn't|unhandled status|failed|error/i.test(output)
      ? [{ title: 'SMTP user names can be enumerated', severity: 'medium' }]
      : [],
  'ssh-auth-methods': (output) =>
    /^\s+password\s*$/m.test(output) ? [{ title: 'SSH password authentication enabled', severity: 'info' }] : [],
  'http-internal-ip-disclosure': when(/Internal IP Leaked/i, 'Web server discloses an internal IP address', 'low'),
  'rdp-enum-encryption': rdpEnumEncryption,
  ...Object.fromEntries(Object.entries(ANSWERED).map(([id, [title, severity]]) => [id, whenOutput(title, severity)])),
};

/**
 * Every rule id script findings can carry (`<script>` or `<script>:<condition>`), besides the
 * scripts of the vulns library, which count whatever their id (VULNS_LIBRARY_SCRIPTS lists the
 * common ones). The finding library's Nmap rules must be among these or they never fire.
 */
export const NMAP_SCRIPT_RULES: readonly string[] = [
  ...Object.keys(INTERPRETERS),
  ...[
    'weak-ciphers',
    'sslv3',
    'deprecated-tls',
    'sweet32',
    'rc4',
    'null-ciphers',
    'anonymous-ciphers',
    'export-ciphers',
  ].map((c) => `ssl-enum-ciphers:${c}`),
  ...['expired', 'expiring-soon', 'self-signed', 'weak-signature', 'short-key'].map((c) => `ssl-cert:${c}`),
  ...SSH_WEAK.map((w) => `ssh2-enum-algos:${w.condition}`),
  'http-methods:risky-methods',
  'http-methods:trace',
  'smb-security-mode:guest',
  'rdp-enum-encryption:standard-security',
];

/** Scripts of Nmap's vulns library (state VULNERABLE) that library rules name. */
export const VULNS_LIBRARY_SCRIPTS: readonly string[] = [
  'smb-vuln-ms17-010',
  'smb-vuln-ms08-067',
  'smb-vuln-ms10-054',
  'smb-vuln-ms10-061',
  'smb-vuln-cve-2017-7494',
  'smb-double-pulsar-backdoor',
  'ssl-heartbleed',
  'ssl-poodle',
  'ssl-ccs-injection',
  'sslv2-drown',
  'ssl-dh-params',
  'realvnc-auth-bypass',
  'ipmi-cipher-zero',
  'rdp-vuln-ms12-020',
  'ftp-vsftpd-backdoor',
  'ftp-proftpd-backdoor',
  'http-vuln-cve2017-5638',
  'http-shellshock',
  'http-slowloris-check',
  'smtp-vuln-cve2010-4344',
  'mysql-vuln-cve2012-2122',
];

/**
 * The findings one script's output reports (often none). Scripts of the vulns library (state
 * VULNERABLE) count whatever their id, so new `*-vuln-*` scripts are read without a change here.
 */
export function interpretScript(scriptId: string, output: string, context: ScriptContext): ScriptResult[] {
  if (scriptId === 'vulners') return [];
  const interpreter = INTERPRETERS[scriptId];
  const results = interpreter ? interpreter(output, context) : [];
  if (results.length === 0 && /State: (LIKELY )?VULNERABLE/.test(output)) results.push(...vulnsLibrary(output));
  return results.map((r) => ({ scriptId, ...r }));
}
