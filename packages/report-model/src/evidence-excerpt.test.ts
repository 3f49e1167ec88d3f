import { describe, expect, it } from 'vitest';
import { mergeAffectedAssets } from './affected-asset.ts';
import {
  assetExcerpt,
  capExcerpt,
  composeExcerpt,
  cutLine,
  EXCERPT_CHARS,
  excerptOfEvidence,
  splitEvidence,
} from './evidence-excerpt.ts';

const page = (n: number, line = (i: number) => `<p>paragraph ${i} of the page</p>`) =>
  Array.from({ length: n }, (_, i) => line(i)).join('\r\n');

const request = [
  'POST /login HTTP/1.1',
  'Host: shop.example.com',
  'User-Agent: Mozilla/5.0',
  'Cookie: session=abc; theme=dark',
  'Content-Type: application/x-www-form-urlencoded',
  '',
  "username=admin'--&password=x",
].join('\r\n');

const response = (body: string, headers: string[] = []) =>
  ['HTTP/1.1 200 OK', 'Date: Sat, 13 Sep 2014 20:15:23 GMT', 'Server: nginx/1.19.0', ...headers, '', body].join('\r\n');

describe('excerptOfEvidence: evidence written by hand or stored before excerpts', () => {
  it('shows evidence of at most EXCERPT_CHARS characters whole', () => {
    const text = 'x'.repeat(EXCERPT_CHARS);
    expect(excerptOfEvidence(text)).toBe(text);
    expect(excerptOfEvidence('')).toBeUndefined();
    expect(excerptOfEvidence(undefined)).toBeUndefined();
  });

  it('finds pasted HTTP messages by their first line, and the note before them', () => {
    const evidence = `Logged in as admin with the payload below.\n\n${request}\n\n${response(page(200))}`;
    expect(splitEvidence(evidence).map((p) => p.kind)).toEqual(['note', 'request', 'response']);
    const excerpt = excerptOfEvidence(evidence, { title: 'SQL injection', parameter: 'username' })!;
    expect(excerpt.split('\n')).toEqual([
      'Logged in as admin with the payload below.',
      '',
      'POST /login HTTP/1.1',
      'Host: shop.example.com',
      '[… 3 headers left out]',
      '',
      "username=admin'--&password=x",
      '',
      'HTTP/1.1 200 OK',
      '[… 2 headers left out]',
      '',
      '[… 200 lines left out]',
    ]);
  });

  it('reads the sections the scanners write, and leaves the reproduction command out', () => {
    const evidence = [
      'The cookie was issued without the HttpOnly flag.',
      `Request:\n${request}`,
      `Response:\n${response(page(100), ['Set-Cookie: session=abc; Path=/'])}`,
      'Interaction: dns from 203.0.113.9 (x.oast.example)',
      'Extracted:\nsession=abc',
      `Reproduce with:\ncurl ${'-H x '.repeat(300)}`,
    ].join('\n\n');
    expect(splitEvidence(evidence).map((p) => p.kind)).toEqual(['note', 'request', 'response', 'note', 'note']);
    const excerpt = excerptOfEvidence(evidence, { title: 'Cookie without HttpOnly flag set' })!;
    expect(excerpt).toContain('Cookie: session=abc; theme=dark');
    expect(excerpt).toContain('Set-Cookie: session=abc; Path=/');
    expect(excerpt).toContain('Interaction: dns from 203.0.113.9');
    expect(excerpt).toContain('Extracted:\nsession=abc');
    expect(excerpt).not.toContain('curl');
  });

  it('keeps the body lines holding a marked string, cut around it, and says how many lines were left out', () => {
    const body = page(50, (i) =>
      i === 30 ? `<div>${'a'.repeat(300)} results for PAYLOAD-123 and ${'b'.repeat(300)}</div>` : `<p>${i}</p>`,
    );
    const excerpt = composeExcerpt([{ kind: 'response', text: response(body) }], { marks: ['payload-123'] });
    const lines = excerpt.split('\n');
    expect(lines).toContain('[… 30 lines left out]');
    expect(lines).toContain('[… 19 lines left out]');
    const marked = lines.find((l) => l.includes('PAYLOAD-123'))!;
    expect(marked.startsWith('…') && marked.endsWith('…')).toBe(true);
    expect(marked.length).toBeLessThanOrEqual(160);
  });

  it('keeps what the request sent when it comes back in the response of an injection finding', () => {
    const sent = 'GET /search?q=%3Csvg%2Fonload%3Dalert(1)%3E HTTP/1.1\r\nHost: a.example\r\n\r\n';
    const body = page(40, (i) => (i === 12 ? 'Results for <svg/onload=alert(1)>' : `<p>${i}</p>`));
    const excerpt = composeExcerpt(
      [
        { kind: 'request', text: sent },
        { kind: 'response', text: response(body) },
      ],
      { title: 'Cross-site scripting (reflected)' },
    );
    expect(excerpt).toContain('Results for <svg/onload=alert(1)>');
  });

  it('keeps database error lines of an SQL injection when nothing was marked', () => {
    const body = page(60, (i) =>
      i === 41 ? 'java.sql.SQLException: Unexpected end of command in statement [SELECT 1]' : `<p>${i}</p>`,
    );
    const excerpt = composeExcerpt([{ kind: 'response', text: response(body) }], { title: 'SQL injection' });
    expect(excerpt).toContain('java.sql.SQLException: Unexpected end of command');
  });

  it('condenses plugin output to its first line and the lines that carry the finding', () => {
    const output = [
      'The remote web server is running an outdated version of Apache.',
      ...Array.from({ length: 60 }, (_, i) => `  filler line number ${i} without anything in it`),
      '  Installed version : 2.4.6',
      '  Fixed version     : 2.4.54',
      '  Path              : /usr/sbin/httpd',
    ].join('\n');
    const excerpt = excerptOfEvidence(`Output:\n${output}`)!;
    expect(excerpt.split('\n')).toEqual([
      'The remote web server is running an outdated version of Apache.',
      '[… 60 lines left out]',
      '  Installed version : 2.4.6',
      '  Fixed version     : 2.4.54',
      '  Path              : /usr/sbin/httpd',
    ]);
  });

  it('never exceeds EXCERPT_CHARS, whatever the evidence', () => {
    const huge = Array.from({ length: 500 }, (_, i) => `Installed version ${i} : 1.${i}.0 at /opt/app/${i}/`).join(
      '\n',
    );
    const excerpt = excerptOfEvidence(huge)!;
    expect(excerpt.length).toBeLessThanOrEqual(EXCERPT_CHARS);
    expect(excerpt).toMatch(/\[… \d+ lines left out\]$/);
    expect(capExcerpt('y'.repeat(10_000)).length).toBeLessThanOrEqual(EXCERPT_CHARS);
  });

  it('cuts long lines with … where they were cut', () => {
    const line = `${'a'.repeat(200)}MARK${'b'.repeat(200)}`;
    expect(cutLine('short')).toBe('short');
    expect(cutLine(line)).toMatch(/^a{159}…$/);
    const around = cutLine(line, 200);
    expect(around).toMatch(/^…a+MARKb+…$/);
    expect(around.length).toBe(160);
    const nearEnd = `${'a'.repeat(400)}MARK${'b'.repeat(20)}`;
    expect(cutLine(nearEnd, 400)).toBe(`…${nearEnd.slice(-159)}`);
  });
});

describe('assetExcerpt and merging', () => {
  it('prefers the stored excerpt, else derives one', () => {
    expect(assetExcerpt({ evidence: 'x'.repeat(3000), excerpt: 'kept' }, 'T')).toBe('kept');
    expect(assetExcerpt({ evidence: 'short' }, 'T')).toBe('short');
    expect(assetExcerpt({}, 'T')).toBeUndefined();
  });

  it('joins the excerpts of evidence joined at one place, within the cap', () => {
    const a = { host: 'h', evidence: 'x'.repeat(2000), excerpt: 'first excerpt' };
    const b = { host: 'h', evidence: 'second evidence, short' };
    const merged = mergeAffectedAssets([a], [b]).assets[0]!;
    expect(merged.evidence).toContain('second evidence, short');
    expect(merged.excerpt).toBe('first excerpt\n\n---\n\nsecond evidence, short');
    const none = mergeAffectedAssets([{ host: 'h', evidence: 'one' }], [{ host: 'h', evidence: 'two' }]).assets[0]!;
    expect(none).not.toHaveProperty('excerpt');
    const many = mergeAffectedAssets(
      [{ ...a, excerpt: 'e'.repeat(1400) }],
      [{ host: 'h', evidence: 'z'.repeat(3000), excerpt: 'f'.repeat(1400) }],
    ).assets[0]!;
    expect(many.excerpt!.length).toBeLessThanOrEqual(EXCERPT_CHARS);
  });
});
