import { createHash } from 'node:crypto';
import {
  documentLink,
  emptyDocumentFinding,
  emptyDocumentTab,
  emptyReportDocument,
  type ReportDocument,
  type ReportDocumentFinding,
  type Severity,
} from '@service/report-model';

const SEVERITIES: Severity[] = ['critical', 'high', 'high', 'medium', 'medium', 'medium', 'low', 'low', 'info'];

/** A paragraph-sized block of realistic Markdown, deterministic per seed. */
function markdownBlock(seed: number, paragraphs: number): string {
  const parts: string[] = [];
  for (let p = 0; p < paragraphs; p++) {
    parts.push(
      `The application at **host-${seed}.example** accepts user input in the \`q\` ` +
        `parameter and passes it to a backend query without validation (observation ` +
        `${seed}.${p}). An attacker can read or change data other users own; see ` +
        `[OWASP](https://owasp.org/Top10/A03_2021-Injection/).`,
    );
    if (p % 2 === 0)
      parts.push(`- Affected endpoint \`/api/v${p}/search\`\n- Parameter \`q\`\n  - reachable without authentication`);
    if (p % 3 === 0) parts.push('```http\nGET /search?q=%27%20OR%201%3D1-- HTTP/1.1\nHost: app.example\n```');
    if (p % 4 === 1)
      parts.push('| Host | Port | Service |\n|---|---|---|\n| 10.0.0.5 | 443 | https |\n| 10.0.0.6 | 8443 | https |');
  }
  return parts.join('\n\n');
}

/** A deterministic fake image reference (only the hash matters to documents). */
export function sampleEvidenceHash(n: number): string {
  return createHash('sha256').update(`evidence-${n}`).digest('hex');
}

/**
 * A report the size consultants ship: `findings` findings of several KB of Markdown each, with
 * affected assets and evidence text, `tabs` narrative tabs, links, and `images` evidence images
 * spread over the findings. Deterministic, so benchmark runs compare.
 */
export function sampleReportDocument(options: {
  findings: number;
  tabs: number;
  images: number;
  assetsPerFinding?: number;
}): ReportDocument {
  const findings: ReportDocumentFinding[] = [];
  for (let i = 0; i < options.findings; i++) {
    const assets = Array.from({ length: options.assetsPerFinding ?? 3 }, (_, a) => ({
      host: `10.0.${i % 250}.${a + 1}`,
      port: 443,
      protocol: 'tcp',
      service: 'https',
      url: `https://10.0.${i % 250}.${a + 1}/app/${i}`,
      evidence:
        `HTTP/1.1 200 OK\nServer: nginx/1.18.0\nX-Powered-By: PHP/7.2.${a}\n\n<response ` + `body of ${200 + a} bytes>`,
    }));
    findings.push({
      ...emptyDocumentFinding(
        `Finding ${i + 1}: SQL injection in search endpoint ${i}`,
        SEVERITIES[i % SEVERITIES.length]!,
      ),
      cvss: [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N', baseScore: 9.1 }],
      cves: i % 5 === 0 ? [`CVE-2023-${10000 + i}`] : [],
      cwes: [89],
      description: markdownBlock(i, 4),
      impact: markdownBlock(i + 1, 1),
      remediation: markdownBlock(i + 2, 2),
      references: ['https://owasp.org/Top10/A03_2021-Injection/', 'https://cwe.mitre.org/data/definitions/89.html'],
      affectedAssets: assets,
    });
  }
  for (let n = 0; n < options.images && findings.length > 0; n++) {
    findings[(n * 7) % findings.length]!.evidence.push({
      sha256: sampleEvidenceHash(n),
      fileName: `screenshot-${n}.png`,
      caption: `Screenshot ${n}: the injected query returns every row.`,
      contentType: 'image/png',
    });
  }
  return {
    ...emptyReportDocument('External penetration test 2026', 'Acme Corp', 'External test'),
    status: 'final',
    findingOrder: 'manual',
    summary: markdownBlock(0, 2),
    project: { name: 'External test', startDate: '2026-11-02', endDate: '2026-11-13' },
    tabs: Array.from({ length: options.tabs }, (_, t) => ({
      ...emptyDocumentTab(`Section ${t + 1}`),
      content: `## Section ${t + 1}\n\n${markdownBlock(t, 6)}`,
    })),
    links: [documentLink('Scope document', 'https://tickets.example/SCOPE-12')],
    findings,
  };
}
