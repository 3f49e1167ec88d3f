import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXCERPT_CHARS, excerptOfEvidence, type AffectedAsset } from '@service/report-model';
import { affectedAssetsOf } from './affected-assets.ts';
import { detectFormat } from './detect-format.ts';
import { burpMarks, occurrenceExcerpt } from './evidence-excerpt.ts';
import type { CompleteFinding } from './normalized-finding.ts';
import { parseScan } from './parse-scan.ts';
import { fixturesDir, readFixture } from './testing/scan-fixtures.ts';

/**
 * The excerpt rules on real scanner evidence (the shared fixtures): what a client reads of each
 * asset instead of the whole HTTP exchange or plugin output.
 */

function findingsOf(file: string): CompleteFinding[] {
  const bytes = readFixture(file);
  if (bytes.length === 0) return [];
  return parseScan(bytes, { format: detectFormat(bytes)! }).findings;
}

function asset(file: string, title: string, url?: string): AffectedAsset {
  const finding = findingsOf(file).find((f) => f.title === title);
  if (!finding) throw new Error(`${file} has no finding "${title}"`);
  const assets = affectedAssetsOf(finding);
  const found = url === undefined ? assets[0] : assets.find((a) => a.url === url);
  if (!found) throw new Error(`${title} has no asset ${url}`);
  return found;
}

const lines = (text: string | undefined) => (text ?? '').split('\n');

describe('excerpts of every shared fixture', () => {
  const files = ['nessus', 'burp', 'nmap', 'nuclei'].flatMap((format) =>
    readdirSync(path.join(fixturesDir, format)).map((name) => `${format}/${name}`),
  );

  it.each(files)('%s: long evidence gets a short excerpt that names no other document', (file) => {
    for (const f of findingsOf(file))
      for (const a of affectedAssetsOf(f)) {
        const evidence = a.evidence ?? '';
        if (evidence.length <= EXCERPT_CHARS) {
          expect(a.excerpt, `${f.title}: short evidence is shown whole`).toBeUndefined();
          continue;
        }
        const excerpt = a.excerpt!;
        expect(excerpt.length, f.title).toBeLessThanOrEqual(EXCERPT_CHARS);
        expect(excerpt.length, f.title).toBeLessThan(evidence.length);
        expect(excerpt.trim(), f.title).not.toBe('');
        expect(excerpt, f.title).not.toMatch(/\bexports?\b|markdown|\bcsv\b/i);
        // Every line that is not a note of what was left out comes from the evidence (cut lines with "…").
        for (const line of lines(excerpt)) {
          if (line === '' || /^\[… .* left out\]$|^\[…\]$/.test(line)) continue;
          const core = line
            .replace(/ \[…\]$/, '')
            .split('…')
            .reduce((longest, part) => (part.length > longest.length ? part : longest), '');
          expect(evidence, `${f.title}: ${line}`).toContain(core.trim());
        }
      }
  });
});

describe('Burp: the request line, the headers that matter and what Burp marked', () => {
  const seven = 'burp/dd__seven_findings.xml';

  it('reflected XSS: the request with the payload and the response line echoing it, not the page', () => {
    const a = asset(seven, 'Cross-site scripting (reflected)');
    expect(a.evidence!.length).toBeGreaterThan(3000);
    const excerpt = lines(a.excerpt);
    expect(excerpt).toContain(
      'GET /bodgeit/search.jsp?q=555-555-0199@example.com5d4ff<script>alert(1)<%2fscript>18327 HTTP/1.1',
    );
    expect(excerpt).toContain('Host: bwa');
    expect(excerpt).toContain('HTTP/1.1 200 OK');
    expect(excerpt).toContain(
      '<b>You searched for:</b> 555-555-0199@example.com5d4ff<script>alert(1)</script>18327<br/><br/>',
    );
    expect(a.excerpt).not.toContain('The BodgeIt Store');
    expect(a.excerpt).not.toContain('User-Agent:');
    expect(a.excerpt).toMatch(/^\[… \d+ lines left out\]$/m);
    expect(a.excerpt).toMatch(/^\[… 6 headers left out\]$/m);
  });

  it('SQL injection in a cookie: the cookie with the payload, the status and the database error', () => {
    const excerpt = asset(seven, 'SQL injection', 'http://bwa/bodgeit/basket.jsp').excerpt!;
    expect(excerpt).toMatch(/^Cookie: ….*; b_id=95'$/m);
    expect(excerpt).toContain('HTTP/1.1 500 Internal Server Error');
    expect(excerpt).toMatch(/java\.sql\.SQLException: Unexpected end of command in statement/);
    expect(excerpt).not.toContain('font-family:Tahoma');
  });

  it('a cookie finding keeps the Set-Cookie header Burp names', () => {
    const excerpt = asset(seven, 'Cookie without HttpOnly flag set').excerpt!;
    expect(lines(excerpt)).toContain('Set-Cookie: JSESSIONID=AD00240A932835EDD60B3F7487A9D15D; Path=/');
    expect(excerpt).toMatch(/^Cookie: acopendivids=/m);
  });

  it('a finding about response headers keeps the whole response header block (an absent header shows only there)', () => {
    const excerpt = lines(asset(seven, 'Frameable response (potential Clickjacking)').excerpt);
    const status = excerpt.indexOf('HTTP/1.1 200 OK');
    expect(excerpt.slice(status, status + 10)).toEqual([
      'HTTP/1.1 200 OK',
      'Date: Sat, 13 Sep 2014 20:15:23 GMT',
      'Server: Apache-Coyote/1.1',
      'Content-Type: text/html',
      'Set-Cookie: JSESSIONID=AD00240A932835EDD60B3F7487A9D15D; Path=/',
      'Via: 1.1 127.0.1.1',
      'Vary: Accept-Encoding',
      'Content-Length: 3177',
      'Keep-Alive: timeout=15, max=100',
      'Connection: Keep-Alive',
    ]);
  });

  it('a charset finding keeps Content-Type and leaves the other headers out', () => {
    const excerpt = lines(asset(seven, 'HTML does not specify charset').excerpt);
    expect(excerpt).toContain('Content-Type: text/html');
    expect(excerpt).not.toContain('Server: Apache-Coyote/1.1');
  });

  it('disclosure findings keep the line with what was disclosed, and Server / X-Powered-By', () => {
    const email = asset('burp/dd__issue4399.xml', 'Email addresses disclosed').excerpt!;
    expect(email).toMatch(/^….*mailto:wvs@acunetix\.com.*$/m);
    const software = lines(asset('burp/dd__issue4399.xml', '[Vulners] Software detected').excerpt);
    expect(software).toContain('Server: nginx/1.19.0');
    expect(software).toContain('X-Powered-By: PHP/5.6.40-38+ubuntu20.04.1+deb.sury.org+1');
  });

  it('reads what Burp marked from the issue detail: bold, strong and list items, and their URL-encoded form', () => {
    expect(
      burpMarks(
        'The payload <b>5d4ff&lt;script&gt;alert(1)&lt;/script&gt;18327</b> was submitted. ' +
          '<ul><li>http://bwa/a b</li></ul><strong>Note:</strong>',
      ),
    ).toEqual([
      '5d4ff<script>alert(1)</script>18327',
      '5d4ff%3Cscript%3Ealert(1)%3C%2Fscript%3E18327',
      'http://bwa/a b',
      'http%3A%2F%2Fbwa%2Fa%20b',
      'http://bwa/a+b',
    ]);
  });
});

describe('plugin and script output: the lines that carry the finding', () => {
  it('Nessus: a long list keeps its first line, the listed pages up to the cap, and says how many were left out', () => {
    const a = asset(
      'nessus/dd__nessus_with_cvssv3.nessus',
      'Missing or Permissive X-Frame-Options HTTP Response Header',
    );
    const excerpt = lines(a.excerpt);
    expect(excerpt[0]).toBe(
      'The following pages do not set a X-Frame-Options response header or set a permissive policy:',
    );
    expect(excerpt).toContain('- http://testphp.vulnweb.com/');
    expect(excerpt[excerpt.length - 1]).toMatch(/^\[… \d+ lines left out\]$/);
  });

  it('Nessus: key : value lines (versions, options) stay, without the indentation Nessus adds', () => {
    const excerpt = lines(
      asset('nessus/dd__nessus_with_cvssv3.nessus', 'HyperText Transfer Protocol (HTTP) Information').excerpt,
    );
    expect(excerpt).toContain('Response Code : HTTP/1.1 200 OK');
    expect(excerpt).toContain('Protocol version : HTTP/1.1');
    expect(excerpt).toContain('Server: nginx/1.19.0');
  });

  it('Nmap: the service version and the script header lead, the long vulners list is cut with a count', () => {
    const a = asset('nmap/dd__nmap_issue4406.xml', 'Open port: 22/tcp');
    const excerpt = lines(a.excerpt);
    expect(excerpt[0]).toBe('OpenSSH 7.4 (protocol 2.0)');
    expect(excerpt).toContain('[vulners]');
    expect(excerpt[excerpt.length - 1]).toMatch(/^\[… \d+ lines left out\]$/);
  });
});

describe('Nuclei: where and by which matcher it matched, extracted results, the marked lines', () => {
  it('names matched-at and the matcher, keeps the request line, Host, the disclosure headers and the matching body line', () => {
    const finding = findingsOf('nuclei/dd__multiple_matches.json').find((f) => f.matcherName === 'recaptcha')!;
    const o = finding.occurrences[0]!;
    // Why forced: the fixture's exchange is short enough to be shown whole, so no excerpt is stored.
    const excerpt = lines(occurrenceExcerpt(o, finding, Number.POSITIVE_INFINITY));
    expect(excerpt[0]).toBe('Matched at https://turquoise-estrellita-69.tiiny.site/ (matcher: recaptcha)');
    expect(excerpt).toContain('GET / HTTP/1.1');
    expect(excerpt).toContain('Host: turquoise-estrellita-69.tiiny.site');
    expect(excerpt).toContain('Server: AmazonS3');
    expect(excerpt).toContain('<div class="g-recaptcha"></div>');
    expect(excerpt.join('\n')).not.toContain('User-Agent');
    expect(excerpt.join('\n')).not.toContain('curl ');
  });

  it('keeps extracted results', () => {
    const finding = findingsOf('nuclei/dd__many_findings_new.json').find((f) => f.ruleId === 'CVE-2018-15473')!;
    const excerpt = occurrenceExcerpt(finding.occurrences[0]!, finding, Number.POSITIVE_INFINITY)!;
    expect(excerpt).toContain('Extracted:\nSSH-2.0-OpenSSH_7.4p1 Debian-10+deb9u7');
  });
});

describe('documents derive an excerpt from evidence stored before excerpts existed', () => {
  it('condenses the stored evidence text by the same rules (without what only the scanner knew)', () => {
    const a = asset('burp/dd__seven_findings.xml', 'Cookie without HttpOnly flag set');
    const derived = excerptOfEvidence(a.evidence, { title: 'Cookie without HttpOnly flag set' })!;
    expect(derived.length).toBeLessThanOrEqual(EXCERPT_CHARS);
    expect(lines(derived)).toContain('GET /bodgeit/ HTTP/1.1');
    expect(lines(derived)).toContain('Set-Cookie: JSESSIONID=AD00240A932835EDD60B3F7487A9D15D; Path=/');
    expect(derived).toContain('The following cookie was issued by the application');
    expect(derived).not.toContain('<html>');
  });
});
