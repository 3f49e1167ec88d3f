import type { ReportDocument, ReportDocumentFinding, Severity } from '@service/report-model';

const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

/** A report of `n` findings as a scan leaves them: a title, a paragraph, a CVE, a host. */
export function lightReport(n: number): ReportDocument {
  const findings: ReportDocumentFinding[] = Array.from({ length: n }, (_, i) => ({
    title: `Finding ${i + 1} of ${n}: outdated TLS configuration on port ${1000 + (i % 5000)}`,
    severity: SEVERITIES[i % SEVERITIES.length]!,
    status: 'open',
    severityReason: '',
    cvss: [],
    cves: i % 7 === 0 ? [`CVE-2024-${10000 + i}`] : [],
    cwes: [326],
    description: `The service on host-${i}.example accepts TLS 1.0 (observation ${i}).`,
    impact: '',
    remediation: 'Disable TLS 1.0 and 1.1.',
    details: '',
    references: [],
    affectedAssets: [{ host: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, port: 443, protocol: 'tcp' }],
    source: { kind: 'manual' },
    evidence: [],
  }));
  return {
    title: `Report of ${n} findings`,
    status: 'draft',
    language: 'en',
    findingOrder: 'severity',
    summary: '',
    client: { name: 'Bench' },
    project: { name: 'Bench', startDate: null, endDate: null },
    style: null,
    template: null,
    tabs: [],
    links: [],
    findings,
  };
}
