import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { affectedAssetsOf, hostOfAssetId, toAffectedAsset } from './affected-assets.ts';
import { detectFormat } from './detect-format.ts';
import { parseScan } from './parse-scan.ts';
import { fixturesDir, readFixture } from './testing/scan-fixtures.ts';

function hostsOf(file: string): { hosts: string[]; urls: string[] } {
  const bytes = readFixture(file);
  if (bytes.length === 0) return { hosts: [], urls: [] };
  const result = parseScan(bytes, { format: detectFormat(bytes)! });
  const hosts = new Set<string>();
  const urls = new Set<string>();
  for (const f of result.findings) {
    for (const a of affectedAssetsOf(f)) {
      if (a.host !== undefined) hosts.add(a.host);
      if (a.url !== undefined) urls.add(a.url);
    }
  }
  return { hosts: [...hosts].sort(), urls: [...urls] };
}

describe('affected assets: host is the host name or address, url the location (SCANNERS.md 1)', () => {
  it.each([
    ['nessus/dd__nessus_many_vuln.xml', ['preprod.boardvantage.net']],
    ['nessus/dd__nessus_was_many_vuln.xml', ['google.com']],
    ['burp/dd__seven_findings.xml', ['bwa']],
    ['burp/dd__one_finding_with_cwe.xml', ['example.com']],
    ['nmap/dd__nmap_issue12411.xml', ['172.217.18.238', '54.239.28.85']],
    ['nuclei/dd__many_findings.json', ['127.0.0.1', 'nuclei-example.com']],
    ['nuclei/dd__multiple_matches.json', ['turquoise-estrellita-69.tiiny.site']],
    ['nuclei/dd__multiple_v3.json', ['www.asdf.de']],
  ])('%s has hosts %j', (file, expected) => {
    expect(hostsOf(file).hosts).toEqual(expected);
  });

  it('keeps the location of web findings in url', () => {
    expect(hostsOf('burp/dd__seven_findings.xml').urls).toContain('http://bwa/bodgeit/search.jsp');
    expect(hostsOf('nuclei/dd__multiple_matches.json').urls).toContain('https://turquoise-estrellita-69.tiiny.site/');
    expect(hostsOf('nessus/dd__nessus_was_many_vuln.xml').urls).toContain('http://google.com/');
  });

  it('never puts a URL or a port into host, for every fixture', () => {
    for (const format of ['nessus', 'burp', 'nmap', 'nuclei']) {
      for (const name of readdirSync(path.join(fixturesDir, format))) {
        for (const host of hostsOf(`${format}/${name}`).hosts) {
          expect(host, `${format}/${name}`).not.toMatch(/:\/\/|\/|^\S+:\d+$/);
        }
      }
    }
  });

  it.each([
    ['http://dvwa_dvwa_1/index.php', 'dvwa_dvwa_1'],
    ['https://app.example:8443', 'app.example'],
    ['http://[2001:db8::1]:8080/x', '2001:db8::1'],
    ['nuclei-example.com:22', 'nuclei-example.com'],
    ['[2001:db8::2]:443', '2001:db8::2'],
    ['2001:db8::3', '2001:db8::3'],
    ['10.0.0.5', '10.0.0.5'],
    ['qa3app09', 'qa3app09'],
  ])('hostOfAssetId(%j) = %j', (id, host) => {
    expect(hostOfAssetId(id)).toBe(host);
  });

  it('keeps the IP beside a host name and drops it when it is the host', () => {
    expect(
      toAffectedAsset({
        asset: { id: 'http://dvwa_dvwa_1/index.php', ip: '172.18.0.2' },
        severity: 'low',
        url: 'http://dvwa_dvwa_1/index.php',
      }),
    ).toEqual({
      host: 'dvwa_dvwa_1',
      ip: '172.18.0.2',
      url: 'http://dvwa_dvwa_1/index.php',
    });
    expect(
      toAffectedAsset({ asset: { id: '10.0.0.5', ip: '10.0.0.5' }, severity: 'low', port: 445, protocol: 'tcp' }),
    ).toEqual({ host: '10.0.0.5', port: 445, protocol: 'tcp' });
  });
});
