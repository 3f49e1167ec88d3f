import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { defineResource } from '../define-resource.ts';
import { baseFields, Severity } from '../field.ts';
import { findingContentFields } from '../finding-content.ts';
import { workspaceVisibility } from '../visibility.ts';

export const globalFields = {
  globalKey: { column: 'global_key', schema: Type.Union([Type.String(), Type.Null()], { description: 'Set on items copied from the global library; null for your own.' }) },
  globalRevision: { column: 'global_revision', schema: Type.Union([Type.Integer(), Type.Null()]) },
};

export function registerFindingLibrary(app: AppContext) {
  return defineResource(app, {
    name: 'finding-library',
    schemaName: 'FindingTemplate',
    label: 'finding template',
    tag: 'Finding library',
    description:
      'Shared finding templates. `scannerRules` (e.g. `nessus:57608`, `nuclei:git-config`, `burp:5245344`) and `cves` let scanner imports replace scanner text with the template\'s curated text.',
    table: 'finding_templates',
    visibility: workspaceVisibility,
    fields: {
      ...baseFields,
      ...findingContentFields,
      scannerRules: {
        column: 'scanner_rules',
        schema: Type.Array(Type.String({ pattern: '^(nessus|burp|nmap|nuclei):.+$', maxLength: 300 }), { maxItems: 200, uniqueItems: true, description: '"<scanner>:<rule id>" pairs this template stands for.' }),
        create: 'optional',
        update: true,
      },
      ...globalFields,
    },
    order: [['r.title', 'asc']],
    filters: {
      severity: { schema: Severity, description: 'Only templates of this severity.', apply: (q, v: string) => void q.where('r.severity', v) },
      scanner_rule: { schema: Type.String({ maxLength: 300 }), description: 'Only templates declaring this "<scanner>:<rule id>".', apply: (q, v: string) => void q.whereRaw('? = any(r.scanner_rules)', [v]) },
    },
    create: { example: { title: 'Exposed .git directory', severity: 'medium', scannerRules: ['nuclei:git-config'], description: 'The web root serves the .git folder...', remediation: 'Block access to /.git.' } },
  });
}
