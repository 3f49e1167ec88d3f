import {
  documentLink,
  emptyDocumentFinding,
  emptyDocumentTab,
  emptyReportDocument,
  type ReportDocument,
} from '@service/report-model';

/**
 * The report the linter renders a template with: the fields a template most often shows filled,
 * lists of one and two, an empty impact. It starts from the model's empty values, so a new field
 * is there (empty) by itself.
 */
export const SAMPLE_REPORT: ReportDocument = {
  ...emptyReportDocument('Sample penetration test', 'Sample Client Ltd.', 'Sample project'),
  findingOrder: 'manual',
  summary: 'A **sample** summary.\n\n- one point\n- another point',
  project: { name: 'Sample project', startDate: '2024-03-04', endDate: '2024-03-08' },
  tabs: [
    {
      ...emptyDocumentTab('Scope'),
      content:
        '# In scope\n\n| Host | Port |\n|---|---|\n| app.example.com | 443 |\n\n> Quoted note.\n\n```\ncode line\n```',
      evidence: [{ sha256: 'a'.repeat(64), fileName: 'scope.png', caption: 'Scope diagram' }],
    },
  ],
  links: [documentLink('Ticket', 'https://tickets.example.com/1')],
  findings: [
    {
      ...emptyDocumentFinding('SQL injection', 'high'),
      cvss: [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 9.8 }],
      cves: ['CVE-2024-0001'],
      cwes: [89],
      description: 'The `q` parameter is injectable.\n\n1. first\n2. second',
      remediation: '## Short term\n\nUse prepared statements. See [OWASP](https://owasp.org).',
      references: ['https://owasp.org/www-community/attacks/SQL_Injection'],
      affectedAssets: [
        {
          host: 'app.example.com',
          port: 443,
          protocol: 'tcp',
          service: 'https',
          url: 'https://app.example.com/search',
          parameter: 'q',
        },
      ],
      evidence: [{ sha256: 'b'.repeat(64), fileName: 'proof.png', caption: 'Proof' }],
    },
    {
      ...emptyDocumentFinding('Missing security headers', 'low'),
      status: 'resolved',
      description: 'Headers are missing.',
      impact: 'Little.',
      remediation: 'Add them.',
    },
  ],
};
