import { describe, expect, it } from 'vitest';
import { LIMITS, parseScan, ScanParseError, type NucleiParseResult } from './index.ts';
import { hostnameOf } from './parse-nuclei.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

function nuclei(text: string): NucleiParseResult {
  const result = parseScan(utf8(text), { format: 'nuclei' });
  if (result.format !== 'nuclei') throw new Error('expected nuclei');
  return result;
}

const record = (fields: Record<string, unknown>) =>
  JSON.stringify({
    'template-id': 't',
    info: { name: 'T', severity: 'info' },
    type: 'http',
    host: 'https://a.example',
    'matched-at': 'https://a.example/x',
    ...fields,
  });

function parseError(text: string): ScanParseError {
  try {
    nuclei(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ScanParseError);
    return error as ScanParseError;
  }
  throw new Error('expected a ScanParseError');
}

describe('NucleiParser input shapes', () => {
  it('returns no findings for empty or blank input', () => {
    expect(nuclei('').stats.inputShape).toBe('empty');
    expect(nuclei(' \n\n\t\n').findings).toEqual([]);
  });

  it('reads JSON lines, skipping blank lines, with or without a final newline and BOM', () => {
    const result = nuclei(`\ufeff${record({})}\r\n\n${record({ 'matcher-name': 'm' })}`);
    expect(result.stats).toMatchObject({ inputShape: 'jsonl', records: 2 });
    expect(result.findings.map((f) => f.groupKey)).toEqual(['t|', 't|m']);
  });

  it('reports the number of a bad line and where in it', () => {
    const error = parseError(`${record({})}\n\n${record({})}\n{"template-id": "x", oops}\n`);
    expect(error.format).toBe('nuclei');
    expect(error.line).toBe(4);
    expect(error.column).toBe(22);
    expect(error.message).toMatch(
      /^Nuclei record is not valid JSON at line 4, column 22: .*JSON lines \(-jsonl\) or a JSON array \(-je\)/,
    );
  });

  it('reads a JSON array element by element', () => {
    const text =
      `[\n  ${record({ info: { name: 'A "quoted" \\\\ name ]}', severity: 'HIGH' } })},\n ` +
      ` ${record({ 'template-id': 'u' })}\n]\n`;
    const result = nuclei(text);
    expect(result.stats.inputShape).toBe('json_array');
    expect(result.findings.map((f) => [f.title, f.severity])).toEqual([
      ['A "quoted" \\\\ name ]}', 'high'],
      ['T', 'info'],
    ]);
  });

  it('reports malformed and truncated arrays with a line', () => {
    expect(parseError(`[\n${record({})}\n${record({})}\n]`).message).toMatch(/line 3: expected , or \] after a record/);
    expect(parseError(`[\n${record({})},\n`).message).toMatch(/closing \] is missing/);
    expect(parseError('[\n1\n]').line).toBe(2);
    expect(parseError(`[\n{"template-id": tru}\n]`).line).toBe(2);
  });

  it('bounds the memory of one record', () => {
    const huge = `{"template-id":"t","response":"${'x'.repeat(LIMITS.jsonRecordChars)}`;
    expect(parseError(huge).message).toMatch(/^Nuclei line 1 is longer than 32 MiB/);
    expect(parseError(`[${huge}`).message).toMatch(/a record is larger than 32 MiB/);
  });

  it('rejects records that are not Nuclei results', () => {
    expect(parseError('{"@version": "2.11", "site": []}').message).toMatch(
      /line 1 has no template-id, so the file is not a Nuclei export \(its keys: @version, site\)/,
    );
    // A pretty-printed JSON report (ZAP, Semgrep, ...) is no Nuclei export, not a JSON error.
    expect(parseError('{\n  "@version": "2.11",\n  "site": []\n}\n').message).toMatch(
      /^The file is not a Nuclei export: it holds one JSON document spread over several lines/,
    );
    expect(parseError('["a"]\n').message).toMatch(/expected a JSON object/);
    expect(parseError('"just a string"').message).toMatch(/not a JSON object/);
  });
});

describe('NucleiParser fields', () => {
  it('keeps the tags and the CPE of the template, and groups by template and matcher', () => {
    const result = nuclei(
      [
        record({
          'matcher-name': 'strict-transport-security',
          info: { name: 'H', severity: 'info', tags: 'Misconfig,headers' },
        }),
        record({ 'matcher-name': 'x-frame-options', info: { name: 'H', severity: 'info', tags: ['misconfig'] } }),
        record({
          info: { name: 'S', severity: 'medium', classification: { cpe: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*' } },
        }),
      ].join('\n'),
    );
    expect(result.findings.map((f) => [f.groupKey, f.ruleId, f.matcherName, f.tags, f.cpes])).toEqual([
      ['t|strict-transport-security', 't', 'strict-transport-security', ['misconfig', 'headers'], undefined],
      ['t|x-frame-options', 't', 'x-frame-options', ['misconfig'], undefined],
      ['t|', 't', undefined, undefined, ['cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*']],
    ]);
  });

  it('accepts the legacy aliases (rule U2)', () => {
    const legacy = JSON.stringify({
      templateID: 'old',
      info: { name: 'Old', severity: 'low' },
      matched: 'http://h.example:8080/p',
      matcher_name: 'm',
      extracted_results: ['v1'],
      host: 'http://h.example:8080',
    });
    const finding = nuclei(legacy).findings[0]!;
    expect(finding.groupKey).toBe('old|m');
    expect(finding.matcherName).toBe('m');
    expect(finding.occurrences[0]).toMatchObject({
      url: 'http://h.example:8080/p',
      asset: { id: 'http://h.example:8080/p', hostname: 'h.example' },
      evidence: { extracted: ['v1'] },
    });
  });

  it('maps unknown severity to low and warns about nonsense (rule U3)', () => {
    const result = nuclei(
      `${record({ info: { name: 'U', severity: 'unknown' } })}\n${record({ 'template-id': 'w', info: { name: 'W', severity: 'weird' } })}`,
    );
    expect(result.findings.map((f) => [f.severity, f.severityRaw])).toEqual([
      ['low', 'unknown'],
      ['low', 'weird'],
    ]);
    expect(result.warnings).toEqual(['Record at line 2 (w) has severity "weird"; treated as low.']);
  });

  it('reads CVE and CWE ids as lists, comma strings or null, ignoring junk (rule U6)', () => {
    const info = (classification: unknown) => ({ name: 'C', severity: 'medium', classification });
    const result = nuclei(
      [
        record({ 'template-id': 'CVE-2020-0001', info: info(null) }),
        record({
          'template-id': 'b',
          info: info({ 'cve-id': 'cve-2021-0001, CVE-2021-0002', 'cwe-id': 'cwe-79,cwe-' }),
        }),
        record({
          'template-id': 'c',
          info: info({
            'cve-id': ['CVE-2022-0001'],
            'cwe-id': ['CWE-89', 'NVD-CWE-Other'],
            'cvss-metrics': 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
            'cvss-score': 9.8,
            'epss-score': 0.5,
          }),
        }),
      ].join('\n'),
    );
    expect(result.findings.map((f) => [f.ruleId, f.cves, f.cwes])).toEqual([
      ['CVE-2020-0001', [], []],
      ['b', ['CVE-2021-0001', 'CVE-2021-0002'], [79]],
      ['c', ['CVE-2022-0001'], [89]],
    ]);
    expect(result.findings[2]!.cvss).toEqual([
      { version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 9.8 },
    ]);
    expect(result.findings[2]!.epssScore).toBe(0.5);
  });

  it('finds the host from host, matched-at, url or ip and counts records without any (rule U5)', () => {
    const bare = (fields: Record<string, unknown>) =>
      JSON.stringify({ 'template-id': 'd', info: { name: 'D', severity: 'info' }, type: 'dns', ...fields });
    const result = nuclei(
      [
        bare({ url: '/http://u.example/path' }),
        bare({ ip: '192.0.2.5' }),
        bare({ 'matched-at': 'M.example:53' }),
        bare({}),
      ].join('\n'),
    );
    expect(result.findings[0]!.occurrences.map((o) => [o.asset.id, o.asset.hostname])).toEqual([
      ['http://u.example/path', 'u.example'],
      ['192.0.2.5', '192.0.2.5'],
      ['M.example:53', 'm.example'],
      ['', undefined],
    ]);
    expect(result.stats.recordsWithoutAsset).toBe(1);
  });

  it('keeps request, response, curl, matched lines and OAST interactions as evidence', () => {
    const finding = nuclei(
      record({
        request: 'GET /',
        response: 'HTTP/1.1 200',
        'curl-command': 'curl x',
        'matched-line': ['l1', 'l2'],
        timestamp: '2024-05-14T10:11:12.123456+02:00',
        interaction: {
          protocol: 'dns',
          'full-id': 'abc.oast.example',
          'q-type': 'A',
          'remote-address': '198.51.100.1',
        },
        info: {
          name: 'E',
          severity: 'critical',
          reference: '- https://r.example/1\n- https://r.example/2',
          remediation: 'Patch',
          impact: 'Bad',
        },
      }),
    ).findings[0]!;
    expect(finding).toMatchObject({
      severity: 'critical',
      remediation: 'Patch',
      impact: 'Bad',
      references: ['https://r.example/1', 'https://r.example/2'],
    });
    expect(finding.occurrences[0]!.firstSeen).toBe('2024-05-14T08:11:12.123Z');
    expect(finding.occurrences[0]!.evidence).toEqual({
      request: 'GET /',
      response: 'HTTP/1.1 200',
      curl: 'curl x',
      output: 'l1\nl2',
      interactions: [{ type: 'dns', originIp: '198.51.100.1', lookupType: 'A', lookupHost: 'abc.oast.example' }],
    });
  });
});

describe('hostnameOf', () => {
  it.each([
    ['https://A.example:8443/x', 'a.example'],
    ['a.example:22', 'a.example'],
    ['a.example', 'a.example'],
    ['http://[2001:db8::1]:80/', '2001:db8::1'],
    ['2001:db8::1', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['10.0.0.1', '10.0.0.1'],
  ])('%s → %s', (input, expected) => expect(hostnameOf(input)).toBe(expected));
});

describe('U+0000 in Nuclei text', () => {
  it('replaces escaped and raw NUL characters with U+FFFD and imports the record', () => {
    const escaped = record({ info: { name: 'Bad\\u0000name', severity: 'high', description: 'a\u0000b' } }).replace(
      'Bad\\\\u0000name',
      'Bad\\u0000name',
    );
    const result = nuclei(escaped);
    expect(result.findings[0]!.title).toBe('Bad\uFFFDname');
    expect(result.findings[0]!.description).toBe('a\uFFFDb');
    expect(JSON.stringify(result.findings)).not.toContain('\\u0000');
  });

  it('keeps an escaped backslash followed by u0000 as text', () => {
    const result = nuclei(record({ info: { name: 'path C:\\u0000dir', severity: 'low' } }));
    expect(result.findings[0]!.title).toBe('path C:\\u0000dir');
  });
});
