// Parse throughput of @service/scanners against the raw parser it is built on, on ~4 MB inputs:
// for Nessus, Burp and Nmap the baseline is saxes with empty handlers on the same bytes (decode
// included); for Nuclei it is JSON.parse of every line. Target: ours >= 50% of the baseline.
// Inputs come from the seeded generators in ../shared/bench (Nmap from a seeded generator below,
// as there is none there) and are written to a temporary folder, never into the repository.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SaxesParser } from 'saxes';
import { parseScan, type ScanFormat } from '@service/scanners';
import { median } from '../support/median.ts';
import { benchGenerator } from '../support/shared-bench.ts';

const TARGET_MB = 4;
const WARMUP_RUNS = 3;
const MEASURED_RUNS = 9;
const TARGET_RATIO = 0.5;

interface Input {
  format: ScanFormat;
  file: string;
}

export default async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scanner-parse-'));
  try {
    const inputs = generateInputs(dir);
    console.log(`inputs in ${dir}; median of ${MEASURED_RUNS} runs after ${WARMUP_RUNS} warm-up runs, decode included`);
    console.log('format  size MB  ours MB/s  baseline MB/s  ratio  target  findings/occurrences  baseline');
    let failed = 0;
    for (const { format, file } of inputs) {
      const bytes = readFileSync(file);
      const baseline = format === 'nuclei' ? jsonLinesBaseline : saxesBaseline;
      const ours = () => parseScan(bytes, { format });
      const [oursMs, baselineMs] = measurePair(ours, () => baseline(bytes));
      const result = ours();
      const occurrences = result.findings.reduce((sum, finding) => sum + finding.occurrences.length, 0);
      const mb = bytes.length / 1024 / 1024;
      const ratio = baselineMs / oursMs;
      if (ratio < TARGET_RATIO) failed++;
      console.log(
        [
          format.padEnd(6),
          mb.toFixed(2).padStart(7),
          (mb / (oursMs / 1000)).toFixed(1).padStart(9),
          (mb / (baselineMs / 1000)).toFixed(1).padStart(13),
          `${(ratio * 100).toFixed(0)}%`.padStart(6),
          (ratio >= TARGET_RATIO ? 'met' : 'MISSED').padStart(7),
          `${result.findings.length}/${occurrences}`.padStart(20),
          format === 'nuclei' ? ' JSON.parse per line' : ' saxes, empty handlers',
        ].join('  '),
      );
    }
    console.log(
      failed === 0
        ? 'all formats at or above 50% of their baseline'
        : `${failed} format(s) below 50% of their baseline`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function generateInputs(dir: string): Input[] {
  const python = (script: Parameters<typeof benchGenerator>[0], out: string, args: string[]) =>
    execFileSync('python3', [benchGenerator(script), '-o', out, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  const nessus = path.join(dir, 'bench.nessus');
  python('gen_nessus.py', nessus, ['--hosts', '300', '--target-mb', String(TARGET_MB)]);
  const burp = path.join(dir, 'bench-burp.xml');
  python('gen_burp.py', burp, ['--target-mb', String(TARGET_MB)]);
  const nuclei = path.join(dir, 'bench-nuclei.jsonl');
  python('gen_nuclei.py', nuclei, ['--target-mb', String(TARGET_MB)]);
  const nmap = path.join(dir, 'bench-nmap.xml');
  writeFileSync(nmap, generateNmapXml(TARGET_MB * 1024 * 1024, 4));
  return [
    { format: 'nessus', file: nessus },
    { format: 'burp', file: burp },
    { format: 'nmap', file: nmap },
    { format: 'nuclei', file: nuclei },
  ];
}

/** Median milliseconds of two functions, runs interleaved so both see the same machine state. */
function measurePair(a: () => unknown, b: () => unknown): [number, number] {
  for (let i = 0; i < WARMUP_RUNS; i++) {
    a();
    b();
  }
  const timesA: number[] = [];
  const timesB: number[] = [];
  for (let i = 0; i < MEASURED_RUNS; i++) {
    timesA.push(timed(a));
    timesB.push(timed(b));
  }
  return [median(timesA), median(timesB)];
}

function timed(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/** The floor for any saxes-based importer: decode, then saxes with handlers that do nothing. */
function saxesBaseline(bytes: Buffer): void {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const nothing = () => {};
  parser.on('opentag', nothing);
  parser.on('closetag', nothing);
  parser.on('text', nothing);
  parser.on('cdata', nothing);
  parser.write(bytes.toString('utf8'));
  parser.close();
}

/** The ceiling for a JSON lines importer: decode, split, JSON.parse every line. */
function jsonLinesBaseline(bytes: Buffer): void {
  for (const line of bytes.toString('utf8').split('\n')) {
    if (line.trim() !== '') JSON.parse(line);
  }
}

/** Seeded PRNG (mulberry32), so every run measures the same bytes. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NMAP_SERVICES = [
  { port: 22, name: 'ssh', product: 'OpenSSH', version: '7.4', cpe: 'cpe:/a:openbsd:openssh:7.4' },
  { port: 80, name: 'http', product: 'Apache httpd', version: '2.4.29', cpe: 'cpe:/a:apache:http_server:2.4.29' },
  {
    port: 443,
    name: 'http',
    product: 'nginx',
    version: '1.14.0',
    cpe: 'cpe:/a:igor_sysoev:nginx:1.14.0',
    tunnel: 'ssl',
  },
  { port: 445, name: 'microsoft-ds', product: 'Samba smbd', version: '4.7.6', cpe: 'cpe:/a:samba:samba:4.7.6' },
  { port: 3306, name: 'mysql', product: 'MySQL', version: '5.7.33', cpe: 'cpe:/a:mysql:mysql:5.7.33' },
  {
    port: 5432,
    name: 'postgresql',
    product: 'PostgreSQL DB',
    version: '10.5',
    cpe: 'cpe:/a:postgresql:postgresql:10.5',
  },
  { port: 8080, name: 'http', product: 'Apache Tomcat', version: '9.0.30', cpe: 'cpe:/a:apache:tomcat:9.0.30' },
  { port: 53, name: 'domain', product: 'ISC BIND', version: '9.11.3', cpe: 'cpe:/a:isc:bind:9.11.3', protocol: 'udp' },
];

/**
 * A structurally realistic `nmap -sV --script vulners,banner` XML report: hosts up and down,
 * ipv4 + mac addresses, PTR names, extraports, open / filtered / closed ports with service
 * detection, banner output, vulners tables (like dd__nmap_issue4406.xml, 10-50 entries per CPE)
 * and OS matches.
 */
function generateNmapXml(targetBytes: number, seed: number): string {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const parts: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE nmaprun>\n<?xml-stylesheet ' +
      'href="file:///usr/bin/../share/nmap/nmap.xsl" type="text/xsl"?>\n',
    '<nmaprun scanner="nmap" args="nmap -sV --script vulners,banner -oX - ' +
      '10.20.0.0/16" start="1715652600" startstr="Tue May 14 02:10:00 2024" ' +
      'version="7.94" xmloutputversion="1.05">\n',
    '<scaninfo type="syn" protocol="tcp" numservices="1000" ' +
      'services="1-1000"/>\n<verbose level="0"/>\n<debugging level="0"/>\n',
  ];
  let size = parts.reduce((sum, part) => sum + part.length, 0);
  const vulnersCatalog = new Map<string, string>();
  for (let host = 0; size < targetBytes - 200; host++) {
    const ip = `10.20.${Math.floor(host / 250) % 256}.${(host % 250) + 1}`;
    const up = next() < 0.9;
    const lines: string[] = [
      `<host starttime="${1715652600 + host}" endtime="${1715652660 + host}"><status ` +
        `state="${up ? 'up' : 'down'}" reason="${up ? 'syn-ack' : 'no-response'}" ` +
        `reason_ttl="0"/>`,
      `<address addr="${ip}" addrtype="ipv4"/>`,
    ];
    if (up) {
      const mac = Array.from({ length: 6 }, () =>
        Math.floor(next() * 256)
          .toString(16)
          .padStart(2, '0')
          .toUpperCase(),
      ).join(':');
      lines.push(`<address addr="${mac}" addrtype="mac" vendor="VMware"/>`);
      lines.push(`<hostnames><hostname name="host${host}.corp.example.com" type="PTR"/></hostnames>`);
      lines.push(
        '<ports><extraports state="closed" count="990"><extrareasons reason="reset" ' +
          'count="990" proto="tcp" ports="1-21,23-79"/></extraports>',
      );
      const services = NMAP_SERVICES.filter(() => next() < 0.45);
      for (const service of services) {
        const state = next() < 0.8 ? 'open' : pick(['filtered', 'closed', 'open|filtered']);
        const protocol = service.protocol ?? 'tcp';
        lines.push(
          `<port protocol="${protocol}" portid="${service.port}"><state state="${state}" ` +
            `reason="syn-ack" reason_ttl="64"/>`,
        );
        lines.push(
          `<service name="${service.name}" product="${service.product}" ` +
            `version="${service.version}"${service.tunnel ? ` tunnel="${service.tunnel}"` : ''} ` +
            `method="probed" conf="10"><cpe>${service.cpe}</cpe></service>`,
        );
        if (state === 'open') {
          lines.push(
            `<script id="banner" output="${service.product} ${service.version} ready (session ` +
              `${Math.floor(next() * 1e9).toString(16)})"/>`,
          );
          if (next() < 0.6) lines.push(vulnersScript(service.cpe, vulnersCatalog, next));
        }
        lines.push('</port>');
      }
      lines.push('</ports>');
      lines.push(
        `<os><osmatch ` +
          `name="${pick(['Linux 4.15 - 5.6', 'Microsoft Windows Server 2016', 'FreeBSD 12.0'])}" ` +
          `accuracy="${90 + Math.floor(next() * 10)}" line="1"/></os>`,
      );
      lines.push(`<times srtt="${Math.floor(next() * 90000)}" rttvar="5000" to="100000"/>`);
    }
    lines.push('</host>\n');
    const block = lines.join('\n');
    parts.push(block);
    size += block.length;
  }
  parts.push(
    '<runstats><finished time="1715660000" timestr="Tue May 14 04:13:20 2024" ' +
      'elapsed="7400" exit="success"/><hosts up="0" down="0" ' +
      'total="0"/></runstats>\n</nmaprun>\n',
  );
  return parts.join('');
}

/**
 * vulners output depends only on the CPE, so every host running the same version gets the same
 * list (as in real scans); the list for each CPE is drawn once from the seeded generator.
 */
function vulnersScript(cpe: string, catalog: Map<string, string>, next: () => number): string {
  let script = catalog.get(cpe);
  if (script === undefined) {
    script = drawVulnersScript(cpe, next);
    catalog.set(cpe, script);
  }
  return script;
}

function drawVulnersScript(cpe: string, next: () => number): string {
  const entries: string[] = [];
  const lines: string[] = [];
  const count = 10 + Math.floor(next() * 40);
  for (let i = 0; i < count; i++) {
    const cve = next() < 0.7;
    const id = cve
      ? `CVE-${2015 + Math.floor(next() * 9)}-${1000 + Math.floor(next() * 40000)}`
      : `EXPLOITPACK:${Math.floor(next() * 2 ** 48)
          .toString(16)
          .toUpperCase()}`;
    const cvss = (Math.floor(next() * 100) / 10).toFixed(1);
    const type = cve ? 'cve' : 'exploitpack';
    entries.push(
      `<table>\n<elem key="cvss">${cvss}</elem>\n<elem key="id">${id}</elem>\n<elem ` +
        `key="is_exploit">${cve ? 'false' : 'true'}</elem>\n<elem ` +
        `key="type">${type}</elem>\n</table>`,
    );
    lines.push(`&#x9;${id}&#x9;${cvss}&#x9;https://vulners.com/${type}/${id}`);
  }
  return (
    `<script id="vulners" output="&#xa;  ${cpe}: &#xa;    ` +
    `${lines.join('&#xa;    ')}"><table ` +
    `key="${cpe}">\n${entries.join('\n')}\n</table>\n</script>`
  );
}
