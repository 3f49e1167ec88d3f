import type { AffectedAsset } from '@service/report-model';
import { affectedAssetsOf } from './affected-assets.ts';
import type { CompleteFinding } from './normalized-finding.ts';

/**
 * What a scan looked at, so a retest can tell "no longer reported" from "not scanned". It is
 * read from the results themselves, informational ones included (so from the whole file, before
 * any minimum severity):
 *
 * - Nessus: every host of the file has results (at least "Nessus Scan Information" at host
 *   level), and the port scanners and service checks report every open port; so a host is
 *   covered when it has results, a port when a result of that host is on that port.
 * - Nmap: a host is covered when it is up with an open port (each open port is a result), a
 *   port when it is open. A port Nmap found closed is not covered: nothing can be said about a
 *   service that did not answer.
 * - Burp and Nuclei: the origins (scheme, host and port) of the URLs requested, and the host and
 *   port of network checks.
 *
 * Coverage is per scanner: a Nessus scan says nothing about a finding only Nuclei reported.
 */
export interface ScanCoverage {
  /** Scanners (lower case: `nessus`, `nuclei`, ...) that have results in the scan. */
  readonly scanners: ReadonlySet<string>;
  /** Whether the scan of `scanner` looked at this place. */
  covers(asset: Pick<AffectedAsset, 'host' | 'ip' | 'port' | 'url'>, scanner: string): boolean;
  /** How much the scan covered, for answers: hosts, host-and-port pairs, web origins. */
  counts(): { hosts: number; ports: number; origins: number };
}

interface Places {
  hosts: Set<string>;
  ports: Set<string>;
  origins: Set<string>;
}

const HTTP_URL = /^https?:\/\//i;

/** `https://host:443` for an http(s) URL (default ports made explicit), else null. */
export function originOf(url: string | undefined): string | null {
  if (!url || !HTTP_URL.test(url)) return null;
  try {
    const u = new URL(url);
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    return `${u.protocol}//${u.hostname.toLowerCase()}:${port}`;
  } catch {
    return null;
  }
}

function portOfOrigin(origin: string): number {
  return Number(origin.slice(origin.lastIndexOf(':') + 1));
}

const hostKey = (host: string) => host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
const hasPort = (port: number | null | undefined): port is number => typeof port === 'number' && port > 0;

/** The coverage of a scan's results (see ScanCoverage). */
export function scanCoverageOf(findings: readonly CompleteFinding[]): ScanCoverage {
  const byScanner = new Map<string, Places>();
  for (const f of findings) {
    const scanner = f.source.scanner.toLowerCase();
    let places = byScanner.get(scanner);
    if (!places) {
      places = { hosts: new Set(), ports: new Set(), origins: new Set() };
      byScanner.set(scanner, places);
    }
    for (const a of affectedAssetsOf(f)) {
      const names = [a.host, a.ip].filter((h): h is string => !!h).map(hostKey);
      for (const h of names) {
        places.hosts.add(h);
        if (hasPort(a.port)) places.ports.add(`${h}|${a.port}`);
      }
      const origin = originOf(a.url);
      if (origin) {
        places.origins.add(origin);
        const u = new URL(origin);
        places.hosts.add(hostKey(u.hostname));
        places.ports.add(`${hostKey(u.hostname)}|${portOfOrigin(origin)}`);
      }
    }
  }
  return {
    scanners: new Set(byScanner.keys()),
    covers(asset, scanner) {
      const places = byScanner.get(scanner.toLowerCase());
      if (!places) return false;
      const origin = originOf(asset.url);
      if (origin && places.origins.has(origin)) return true;
      const names = [asset.host, asset.ip].filter((h): h is string => !!h).map(hostKey);
      if (origin) names.push(hostKey(new URL(origin).hostname));
      const port = hasPort(asset.port) ? asset.port : origin ? portOfOrigin(origin) : null;
      return names.some((h) => (port === null ? places.hosts.has(h) : places.ports.has(`${h}|${port}`)));
    },
    counts() {
      let hosts = 0;
      let ports = 0;
      let origins = 0;
      for (const p of byScanner.values()) {
        hosts += p.hosts.size;
        ports += p.ports.size;
        origins += p.origins.size;
      }
      return { hosts, ports, origins };
    },
  };
}
