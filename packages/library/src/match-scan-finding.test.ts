// One scanner rule that covers several things becomes one finding per template it takes: Burp's
// "TLS certificate" issue type (16777472) is a medium problem on one host and a purely
// informational note on another, in the wording Burp writes.
import { parseScan } from '@service/scanners';
import { describe, expect, it } from 'vitest';
import { buildTemplateMatchIndex, matchScanFinding, matchTemplates, type MatchableTemplate } from './index.ts';

const PROBLEMS =
  "The following problems were identified with the server's TLS certificate:<ul><li>The server's certificate is " +
  "not valid for the server's hostname.</li><li>The server's certificate is not trusted.</li></ul>";
const EXPIRED =
  "The following problem was identified with the server's TLS certificate:<ul><li>The server's certificate has " +
  'expired.</li></ul>';
const VALID = 'The server presented a valid, trusted TLS certificate. This issue is purely informational.';

function tlsIssue(host: string, severity: string, detail: string): string {
  return (
    `<issue><serialNumber>${host.length}</serialNumber><type>16777472</type><name>TLS certificate</name>` +
    `<host ip="10.0.0.1">https://${host}</host><path>/</path><location>/</location>` +
    `<severity>${severity}</severity><confidence>Certain</confidence>` +
    `<issueDetail><![CDATA[${detail}]]></issueDetail></issue>`
  );
}

const scan = (...issues: string[]) =>
  parseScan(new TextEncoder().encode(`<?xml version="1.0"?><issues burpVersion="2024.1">${issues.join('')}</issues>`))
    .findings;

const TEMPLATES: MatchableTemplate[] = [
  { key: 'tls-certificate-problem', severity: 'medium', rules: ['burp:16777472'] },
  { key: 'tls-certificate-valid', severity: 'info', rules: ['burp:rule=16777472 & severity=info'] },
  {
    key: 'tls-certificate-expired',
    severity: 'medium',
    rules: ['burp:rule=16777472 & detail=certificate has expired'],
    groupKey: 'expired',
  },
];
const index = buildTemplateMatchIndex(TEMPLATES);

describe('matchScanFinding', () => {
  it('splits one rule into a finding per template its occurrences take, the group key naming the template', () => {
    const [finding] = scan(
      tlsIssue('a.example', 'Medium', PROBLEMS),
      tlsIssue('b.example', 'Information', VALID),
      tlsIssue('c.example', 'Medium', EXPIRED),
      tlsIssue('d.example', 'Information', VALID),
    );
    expect(finding!.occurrences).toHaveLength(4);
    const parts = matchScanFinding(finding!, index);
    expect(
      parts.map((p) => ({
        groupKey: p.finding.groupKey,
        severity: p.finding.severity,
        hosts: p.finding.occurrences.map((o) => o.asset.id),
        template: p.match?.templateKey,
      })),
    ).toEqual([
      { groupKey: '16777472', severity: 'medium', hosts: ['https://a.example'], template: 'tls-certificate-problem' },
      {
        groupKey: '16777472|tls-certificate-valid',
        severity: 'info',
        hosts: ['https://b.example', 'https://d.example'],
        template: 'tls-certificate-valid',
      },
      {
        groupKey: '16777472|expired',
        severity: 'medium',
        hosts: ['https://c.example'],
        template: 'tls-certificate-expired',
      },
    ]);
    expect(parts[1]!.match).toMatchObject({ matchedOn: 'condition', confidence: 'high' });
  });

  it('keeps a finding whole when no variant takes an occurrence, and a whole finding never takes a variant', () => {
    const [finding] = scan(tlsIssue('a.example', 'Medium', PROBLEMS), tlsIssue('e.example', 'Medium', PROBLEMS));
    const parts = matchScanFinding(finding!, index);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.finding).toBe(finding);
    expect(parts[0]!.match?.templateKey).toBe('tls-certificate-problem');
    // Only valid certificates: the finding is the informational variant, under its own group key.
    const [valid] = scan(tlsIssue('b.example', 'Information', VALID));
    expect(matchTemplates(valid!, index)).toBeNull();
    expect(matchScanFinding(valid!, index).map((p) => [p.finding.groupKey, p.match?.templateKey])).toEqual([
      ['16777472|tls-certificate-valid', 'tls-certificate-valid'],
    ]);
  });

  it('applies the precision rules per occurrence: an informational occurrence takes no medium variant', () => {
    const strict = buildTemplateMatchIndex([
      { key: 'problem', severity: 'medium', rules: ['burp:rule=16777472 & detail=TLS certificate'] },
    ]);
    const [finding] = scan(tlsIssue('a.example', 'Medium', PROBLEMS), tlsIssue('b.example', 'Information', VALID));
    const parts = matchScanFinding(finding!, strict);
    expect(parts.map((p) => [p.finding.groupKey, p.finding.severity, p.match?.templateKey ?? null])).toEqual([
      ['16777472|problem', 'medium', 'problem'],
      ['16777472', 'info', null],
    ]);
  });

  it('gives a result above info no informational template: its text would contradict the severity', () => {
    const info = buildTemplateMatchIndex([{ key: 'note', severity: 'info', rules: ['burp:16777472'] }]);
    const [medium] = scan(tlsIssue('a.example', 'Medium', PROBLEMS));
    const [valid] = scan(tlsIssue('b.example', 'Information', VALID));
    expect(matchTemplates(medium!, info)).toBeNull();
    expect(matchTemplates(valid!, info)?.templateKey).toBe('note');
  });
});
