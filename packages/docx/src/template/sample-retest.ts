import type { ReportDocument } from '@service/report-model';
import { SAMPLE_REPORT } from './sample-report.ts';

const [injection, headers] = SAMPLE_REPORT.findings as [
  ReportDocument['findings'][number],
  ReportDocument['findings'][number],
];

/**
 * A retest of the sample report, for the linter, the example template and tests: round 1, one
 * finding partially resolved (one asset fixed, one still open, with re-scan evidence and a retest
 * image), one resolved by a person's decision with the client's risk acceptance, one new finding.
 */
export const SAMPLE_RETEST: ReportDocument = {
  ...SAMPLE_REPORT,
  title: 'Sample penetration test – retest',
  retest: { round: 1, retestOf: { title: SAMPLE_REPORT.title }, original: { title: SAMPLE_REPORT.title } },
  findings: [
    {
      ...injection,
      affectedAssets: [...injection.affectedAssets, { host: 'api.example.com', port: 443, protocol: 'tcp' }],
      retest: {
        status: 'partially_resolved',
        statusSetBy: 'assets',
        statusNote: '',
        notes: 'Retested with the **original** payloads.',
        retestedAt: '2024-04-02',
        riskAccepted: false,
        riskAcceptedNote: '',
        assets: [
          {
            host: 'app.example.com',
            port: 443,
            protocol: 'tcp',
            url: 'https://app.example.com/search',
            parameter: 'q',
            status: 'resolved',
            evidence: '',
          },
          {
            host: 'api.example.com',
            port: 443,
            protocol: 'tcp',
            status: 'unresolved',
            evidence: "GET /search?q=1' HTTP/1.1\n-> 500 Internal Server Error (SQL syntax)",
          },
        ],
        evidence: [{ sha256: 'c'.repeat(64), fileName: 'retest-proof.png', caption: 'Still injectable' }],
      },
    },
    {
      ...headers,
      retest: {
        status: 'resolved',
        statusSetBy: 'person',
        statusNote: 'Checked by hand: every header is set.',
        notes: '',
        retestedAt: '2024-04-03',
        riskAccepted: true,
        riskAcceptedNote: 'The client accepts the remaining risk of the legacy host.',
        assets: [],
        evidence: [],
      },
    },
    {
      ...headers,
      title: 'Outdated TLS configuration',
      severity: 'medium',
      status: 'open',
      description: 'TLS 1.0 is enabled.',
      affectedAssets: [{ host: 'mail.example.com', port: 25, protocol: 'tcp' }],
      retest: {
        status: 'new',
        statusSetBy: 'assets',
        statusNote: '',
        notes: 'First seen in the retest.',
        retestedAt: '2024-04-02',
        riskAccepted: false,
        riskAcceptedNote: '',
        assets: [{ host: 'mail.example.com', port: 25, protocol: 'tcp', status: 'new', evidence: '' }],
        evidence: [],
      },
    },
  ],
};
