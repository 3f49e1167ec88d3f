import { FINDING_FIELDS, type Finding, type FindingFieldName } from '../finding-fields.ts';

/**
 * A value of every finding field that is not its empty value, by the field's shape, for tests that
 * walk every field through a path (a new shape is a compile error here until it has a sample).
 * `variant` 1 and 2 differ in every field, so a change of each can be seen.
 */
export function sampleFieldValue(name: FindingFieldName, variant: 1 | 2 = 1): Finding[FindingFieldName] {
  const shape = FINDING_FIELDS[name].shape;
  const n = variant;
  switch (shape) {
    case 'title':
      return `${name} ${n}: SQL injection in "search" <form> & more`;
    case 'severity':
      return n === 1 ? 'high' : 'medium';
    case 'status':
      return n === 1 ? 'accepted-risk' : 'resolved';
    case 'cvss':
      return n === 1
        ? [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:L/A:N', baseScore: 8.2 }]
        : [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:L/I:L/A:N', baseScore: 5.4 }];
    case 'cveList':
      return n === 1 ? ['CVE-2024-1007'] : ['CVE-2023-44487', 'CVE-2021-44228'];
    case 'cweList':
      return n === 1 ? [89] : [79, 352];
    case 'markdown':
      return `The ${name}, variant ${n}:\n\n- one **point**\n- \`code\` and [a link](https://example.com/${name}/${n})`;
    case 'referenceList':
      return [`https://example.com/${name}/${n}`];
    case 'assets':
      return [
        {
          host: n === 1 ? 'app.example.com' : '10.0.0.5',
          port: n === 1 ? 443 : 445,
          protocol: 'tcp',
          url: n === 1 ? 'https://app.example.com/search' : undefined,
          evidence: `Evidence ${n}`,
          excerpt: n === 1 ? 'Excerpt 1' : undefined,
        },
      ].map((a) => Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)));
    case 'source':
      return n === 1 ? { kind: 'template', templateKey: 'sql-injection' } : { kind: 'manual' };
    case 'note':
      return `${name} ${n}: rated as the client's policy requires`;
    default:
      return shape satisfies never;
  }
}

/** A finding with a sample value in every field. */
export function sampleFinding(variant: 1 | 2 = 1): Finding {
  return Object.fromEntries(
    (Object.keys(FINDING_FIELDS) as FindingFieldName[]).map((name) => [name, sampleFieldValue(name, variant)]),
  ) as Finding;
}
