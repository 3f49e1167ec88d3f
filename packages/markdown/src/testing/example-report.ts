import {
  documentLink,
  emptyDocumentFinding,
  emptyDocumentTab,
  emptyReportDocument,
  type ReportDocument,
} from '@service/report-model';

/**
 * A small but complete report: the example of docs/markdown-format.md is its export. It starts
 * from the model's empty values and sets what the example shows.
 */
export const EXAMPLE_REPORT: ReportDocument = {
  ...emptyReportDocument('Web application penetration test', 'ACME Corp.', 'Shop 2024'),
  status: 'review',
  findingOrder: 'severity',
  summary: 'We tested the **shop** web application from 4 to 8 March 2024 and found one high and one medium issue.',
  project: { name: 'Shop 2024', startDate: '2024-03-04', endDate: '2024-03-08' },
  style: { key: 'style-corporate', name: 'Corporate' },
  template: { key: 'report-pentest', name: 'Penetration test' },
  tabs: [
    {
      ...emptyDocumentTab('Executive summary'),
      content:
        'The shop is well protected against common attacks. Two findings need ' +
        'attention:\n\n- SQL injection in the login form\n- Missing security headers',
    },
    {
      ...emptyDocumentTab('Scope'),
      content:
        '# In scope\n\n| Host | Port |\n|---|---|\n| shop.example.com | 443 |\n\n# Out of scope\n\nDenial of service.',
      evidence: [
        {
          sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
          fileName: 'network-diagram.png',
          caption: 'Network overview [draft]',
          contentType: 'image/png',
        },
      ],
    },
  ],
  links: [
    documentLink('Ticket SEC-42', 'https://jira.example.com/browse/SEC-42'),
    documentLink('Scope document (v2)', 'https://docs.example.com/scope v2.pdf'),
  ],
  findings: [
    {
      ...emptyDocumentFinding('SQL injection in the login form', 'high'),
      cvss: [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 9.8 }],
      cwes: [89],
      references: ['https://owasp.org/www-community/attacks/SQL_Injection'],
      source: { kind: 'template', templateKey: 'web-sql-injection' },
      description:
        'The `username` parameter is put into an SQL statement ' +
        "unescaped.\n\n```sql\nSELECT * FROM users WHERE name = 'admin'--'\n```",
      impact: 'An attacker can log in as any user and read the whole database.',
      remediation: '### Short term\n\nEscape the parameter.\n\n### Long term\n\nUse prepared statements everywhere.',
      affectedAssets: [
        {
          host: 'shop.example.com',
          ip: '203.0.113.10',
          port: 443,
          protocol: 'tcp',
          service: 'https',
          url: 'https://shop.example.com/login',
          parameter: 'username',
          evidence:
            'POST /login HTTP/1.1\r\nHost: shop.example.com\r\nContent-Type: ' +
            "application/x-www-form-urlencoded\r\n\r\nusername=admin'--&password=x",
          excerpt:
            "POST /login HTTP/1.1\nHost: shop.example.com\n[… 1 header left out]\n\nusername=admin'--&password=x",
        },
      ],
      evidence: [
        {
          sha256: '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae',
          fileName: 'login-bypass.png',
          caption: 'Logged in as admin without a password',
          contentType: 'image/png',
        },
      ],
    },
    {
      ...emptyDocumentFinding('Missing security headers', 'medium'),
      cvss: [
        { version: '3.1', vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:C/C:L/I:L/A:N', baseScore: 4.7 },
        { version: '2.0', vector: null, baseScore: 4.3 },
      ],
      cwes: [693],
      source: { kind: 'scanner', scanner: 'nessus', scannerVersion: '10.7.1', ruleId: '98527' },
      description: 'The responses lack `Content-Security-Policy` and `Strict-Transport-Security`.',
      remediation: 'Send both headers on every response.',
      affectedAssets: [{ host: 'shop.example.com', port: 443, protocol: 'tcp', url: 'https://shop.example.com/' }],
    },
  ],
};
