import {
  emptyDocumentFinding,
  emptyReportDocument,
  type ReportDocument,
  type ReportDocumentFinding,
  type Severity,
} from '@service/report-model';

const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

/** A report of `n` findings as a scan leaves them: a title, a paragraph, a CVE, a host. */
export function lightReport(n: number): ReportDocument {
  const findings: ReportDocumentFinding[] = Array.from({ length: n }, (_, i) => ({
    ...emptyDocumentFinding(
      `Finding ${i + 1} of ${n}: outdated TLS configuration on port ${1000 + (i % 5000)}`,
      SEVERITIES[i % SEVERITIES.length]!,
    ),
    cves: i % 7 === 0 ? [`CVE-2024-${10000 + i}`] : [],
    cwes: [326],
    description: `The service on host-${i}.example accepts TLS 1.0 (observation ${i}).`,
    remediation: 'Disable TLS 1.0 and 1.1.',
    affectedAssets: [{ host: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, port: 443, protocol: 'tcp' }],
  }));
  return { ...emptyReportDocument(`Report of ${n} findings`, 'Bench', 'Bench'), findings };
}
