import { describe, expect, it } from 'vitest';
import { decodeBurpMessage } from './decode-burp-message.ts';
import { parseScan, type BurpParseResult } from './index.ts';
import { LIMITS } from './limits.ts';
import { readFixture } from './testing/scan-fixtures.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);
const base64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

function burp(issues: string): BurpParseResult {
  const result = parseScan(utf8(`<?xml version="1.0"?>\n<issues burpVersion="2023.1">\n${issues}\n</issues>`));
  if (result.format !== 'burp') throw new Error('expected burp');
  return result;
}

const issue = (fields: Record<string, string>, extra = '') =>
  `<issue>${Object.entries({
    type: '1',
    name: 'N',
    host: 'https://app.example',
    path: '/',
    location: '/',
    severity: 'Low',
    confidence: 'Firm',
    ...fields,
  })
    .map(([key, value]) =>
      key === 'host' ? `<host ip="192.0.2.1">${value}</host>` : `<${key}><![CDATA[${value}]]></${key}>`,
    )
    .join('')}${extra}</issue>`;

describe('BurpParser', () => {
  it('keys extension-generated issues by type and name, others by type (rule B3)', () => {
    const result = burp(
      issue({ type: '134217728', name: 'Ext A' }) +
        issue({ type: '134217728', name: 'Ext B' }) +
        issue({ type: '5', name: 'X' }) +
        issue({ type: '5', name: 'X', severity: 'High' }),
    );
    expect(result.findings.map((f) => [f.groupKey, f.severity, f.occurrences.length])).toEqual([
      ['134217728|Ext A', 'low', 1],
      ['134217728|Ext B', 'low', 1],
      ['5', 'high', 2],
    ]);
    expect(result.findings[2]!.severityRaw).toBe('High');
    expect(result.findings[2]!.occurrences.map((o) => o.severity)).toEqual(['low', 'high']);
  });

  it('maps host, path, parameter and confidence onto the occurrence', () => {
    const result = burp(
      issue({
        host: 'https://app.example:8443',
        path: '/a[0]/b',
        location: '/a[0]/b [q parameter]',
        confidence: 'Tentative',
        severity: 'Information',
      }),
    );
    const [occurrence] = result.findings[0]!.occurrences;
    expect(occurrence).toMatchObject({
      asset: { id: 'https://app.example:8443', ip: '192.0.2.1', hostname: 'app.example' },
      port: 8443,
      protocol: 'tcp',
      service: 'https',
      path: '/a[0]/b',
      url: 'https://app.example:8443/a[0]/b',
      parameter: 'q parameter',
      confidence: 'Tentative',
      severity: 'info',
    });
    expect(result.findings[0]!.confidence).toBe('Tentative');
  });

  it('decodes base64 only when the element says so and keeps every exchange and interaction', () => {
    const exchange = (request: string, response: string, b64: boolean) =>
      `<requestresponse><request method="GET" ` +
      `base64="${b64}"><![CDATA[${request}]]></request><response ` +
      `base64="${b64}"><![CDATA[${response}]]></response></requestresponse>`;
    const result = burp(
      issue(
        {},
        exchange(base64('GET / HTTP/1.1\r\n\r\n'), base64('HTTP/1.1 200 OK\r\n\r\nhi'), true) +
          exchange('GET /raw HTTP/1.1', 'SFRUUC8xLjEgMjAwIE9L', false) +
          '<collaboratorEvent><interactionType>DNS</interactionType><originIp>198.51.100.7</originIp><lookupType>A</lookupType><lookupHost>x.oast.example</lookupHost></collaboratorEvent>',
      ),
    );
    expect(result.stats).toMatchObject({ requestResponsePairs: 2, collaboratorEvents: 1, base64FalsePresent: true });
    expect(result.findings[0]!.occurrences[0]!.evidence).toEqual({
      method: 'GET',
      request: 'GET / HTTP/1.1\r\n\r\n',
      response: 'HTTP/1.1 200 OK\r\n\r\nhi',
      additionalExchanges: [{ method: 'GET', request: 'GET /raw HTTP/1.1', response: 'SFRUUC8xLjEgMjAwIE9L' }],
      interactions: [{ type: 'DNS', originIp: '198.51.100.7', lookupType: 'A', lookupHost: 'x.oast.example' }],
    });
  });

  it('keeps an occurrence whose response is missing or empty', () => {
    const result = burp(
      issue(
        {},
        '<requestresponse><request base64="true"></request><response base64="true"></response></requestresponse>',
      ),
    );
    expect(result.findings[0]!.occurrences).toHaveLength(1);
    expect(result.findings[0]!.occurrences[0]!.evidence).toBeUndefined();
  });

  it('converts the HTML texts, keeps the originals and collects CWE ids and reference links', () => {
    const result = burp(
      issue({
        issueBackground: '<p>Bad &amp; worse</p><ul><li>one</li><li>two</li></ul>',
        remediationBackground: '<p>Fix it</p>',
        references: '<ul><li><a href="https://r.example/1">R1</a></li></ul>',
        vulnerabilityClassifications:
          '<ul><li><a href="https://cwe.mitre.org/data/definitions/79.html">CWE-79: ' +
          'XSS</a></li><li>CWE-116: Encoding</li></ul>',
        issueDetail: 'The <b>q</b> parameter.',
      }),
    );
    const finding = result.findings[0]!;
    expect(finding.description).toBe('Bad & worse\n\n- one\n- two');
    expect(finding.descriptionHtml).toBe('<p>Bad &amp; worse</p><ul><li>one</li><li>two</li></ul>');
    expect(finding.remediation).toBe('Fix it');
    expect(finding.references).toEqual(['https://r.example/1']);
    expect(finding.cwes).toEqual([79, 116]);
    expect(finding.occurrences[0]!.detail).toBe('The q parameter.');
  });
});

describe('decodeBurpMessage', () => {
  it('replaces invalid UTF-8 instead of rejecting it', () => {
    const bytes = new Uint8Array([...utf8('HTTP/1.1 200 OK\r\n\r\ncaf'), 0xe9, 0x21]);
    expect(decodeBurpMessage(base64(bytes), true)).toBe('HTTP/1.1 200 OK\r\n\r\ncaf\ufffd!');
  });

  it('keeps the headers of a binary body and replaces the body with a marker', () => {
    const bytes = new Uint8Array([
      ...utf8('HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n'),
      0x89,
      0x50,
      0x00,
      0x01,
      0x02,
    ]);
    expect(decodeBurpMessage(base64(bytes), true)).toBe(
      'HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n[binary body omitted: 5 bytes]',
    );
  });

  it('caps a large message', () => {
    const big = `HTTP/1.1 200 OK\r\n\r\n${'x'.repeat(1_000_000)}`;
    const decoded = decodeBurpMessage(base64(big), true) as string;
    expect(decoded.length).toBeLessThanOrEqual(LIMITS.httpMessageChars);
    expect(decoded).toMatch(/\[truncated: \d+ more characters\]$/);
    expect((decodeBurpMessage(big, false) as string).length).toBeLessThanOrEqual(LIMITS.httpMessageChars);
  });

  it('returns undefined for an empty message', () => {
    expect(decodeBurpMessage('', true)).toBeUndefined();
    expect(decodeBurpMessage('  ', false)).toBeUndefined();
  });
});

describe('dd__issue4399.xml evidence', () => {
  it('attaches collaborator interactions and keeps messages within the cap', () => {
    const result = parseScan(readFixture('burp/dd__issue4399.xml'));
    const occurrences = result.findings.flatMap((f) => f.occurrences);
    expect(occurrences.filter((o) => o.evidence?.interactions !== undefined)).toHaveLength(3);
    for (const occurrence of occurrences) {
      expect((occurrence.evidence?.response ?? '').length).toBeLessThanOrEqual(LIMITS.httpMessageChars);
    }
  });
});
