import type { ReportDocument } from '@service/report-model';

/** The report the linter renders a template with: every field filled, lists of one and two, an empty impact. */
export const SAMPLE_REPORT: ReportDocument = {
  title: 'Sample penetration test',
  status: 'draft',
  language: 'en',
  findingOrder: 'manual',
  summary: 'A **sample** summary.\n\n- one point\n- another point',
  client: { name: 'Sample Client Ltd.' },
  project: { name: 'Sample project', startDate: '2024-03-04', endDate: '2024-03-08' },
  style: null,
  template: null,
  tabs: [
    {
      title: 'Scope',
      content:
        '# In scope\n\n| Host | Port |\n|---|---|\n| app.example.com | 443 |\n\n> Quoted note.\n\n```\ncode line\n```',
      placement: 'before',
      evidence: [{ sha256: 'a'.repeat(64), fileName: 'scope.png', caption: 'Scope diagram' }],
    },
  ],
  links: [{ title: 'Ticket', url: 'https://tickets.example.com/1' }],
  findings: [
    {
      title: 'SQL injection',
      severity: 'high',
      severityReason: '',
      details: '',
      status: 'open',
      cvss: [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 9.8 }],
      cves: ['CVE-2024-0001'],
      cwes: [89],
      description: 'The `q` parameter is injectable.\n\n1. first\n2. second',
      impact: '',
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
      source: { kind: 'manual' },
      evidence: [{ sha256: 'b'.repeat(64), fileName: 'proof.png', caption: 'Proof' }],
    },
    {
      title: 'Missing security headers',
      severity: 'low',
      severityReason: '',
      details: '',
      status: 'resolved',
      cvss: [],
      cves: [],
      cwes: [],
      description: 'Headers are missing.',
      impact: 'Little.',
      remediation: 'Add them.',
      references: [],
      affectedAssets: [],
      source: { kind: 'manual' },
      evidence: [],
    },
  ],
};
