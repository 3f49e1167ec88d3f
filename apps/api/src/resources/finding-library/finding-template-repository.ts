import type { Knex } from 'knex';
import { Type } from 'typebox';
import { SeveritySchema, type Cvss } from '@service/report-model';
import type { CompleteFinding } from '@service/scanners';
import { baseFields } from '../field.ts';
import { findingContentFields } from '../findings/finding-fields.ts';
import { ResourceRepository } from '../resource-repository.ts';
import { workspaceVisibility } from '../visibility.ts';
import { globalFields } from './global-fields.ts';

/** The curated text a matching template gives a new scanner finding. */
export interface MatchedTemplate {
  id: string;
  title: string;
  globalKey: string | null;
  description: string;
  impact: string;
  remediation: string;
  references: string[];
  cves: string[];
  cwes: number[];
  cvss: Cvss[];
}

export interface TemplateMatch {
  template: MatchedTemplate;
  /** `<scanner>:<rule id>` or the CVE that matched. */
  matchedOn: string;
}

interface TemplateRow {
  id: string;
  title: string;
  global_key: string | null;
  description: string;
  impact: string;
  remediation: string;
  references: string[];
  cves: string[];
  cwes: number[];
  cvss: Cvss[];
  scanner_rules: string[];
}

/** The finding library of a workspace: finding templates, and picking one for a scanner finding. */
export class FindingTemplateRepository extends ResourceRepository {
  constructor() {
    super({
      name: 'finding-library',
      schemaName: 'FindingTemplate',
      label: 'finding template',
      tag: 'Finding library',
      description:
        "Shared finding templates. `scannerRules` (e.g. `nessus:57608`, `nuclei:git-config`, `burp:5245344`) and `cves` let scanner imports replace scanner text with the template's curated text. Not visible to external collaborators.",
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
        severity: { schema: SeveritySchema, description: 'Only templates of this severity.', apply: (q, v: string) => void q.where('r.severity', v) },
        scanner_rule: { schema: Type.String({ maxLength: 300 }), description: 'Only templates declaring this "<scanner>:<rule id>".', apply: (q, v: string) => void q.whereRaw('? = any(r.scanner_rules)', [v]) },
      },
      create: {
        example: { title: 'Exposed .git directory', severity: 'medium', scannerRules: ['nuclei:git-config'], description: 'The web root serves the .git folder...', remediation: 'Block access to /.git.' },
      },
    });
  }

  /**
   * The template for each scanner finding (by `<scanner>:<group key>`): one that declares the
   * scanner's rule id wins over one that shares a CVE; ties go to the oldest template.
   */
  async matchScanFindings(trx: Knex, findings: readonly CompleteFinding[]): Promise<Map<string, TemplateMatch>> {
    const matches = new Map<string, TemplateMatch>();
    const rules = [...new Set(findings.map((f) => `${f.source.scanner.toLowerCase()}:${f.ruleId}`))];
    const cves = [...new Set(findings.flatMap((f) => f.cves))];
    if (rules.length === 0 && cves.length === 0) return matches;
    const rows = (await trx('finding_templates')
      .where((w) => w.whereRaw('scanner_rules && ?::text[]', [rules]).orWhereRaw('cves && ?::text[]', [cves]))
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select('id', 'title', 'global_key', 'description', 'impact', 'remediation', 'references', 'cves', 'cwes', 'cvss', 'scanner_rules')) as TemplateRow[];
    const byRule = new Map<string, TemplateRow>();
    const byCve = new Map<string, TemplateRow>();
    for (const t of rows) {
      for (const r of t.scanner_rules) if (!byRule.has(r)) byRule.set(r, t);
      for (const c of t.cves) if (!byCve.has(c)) byCve.set(c, t);
    }
    const toTemplate = (t: TemplateRow): MatchedTemplate => ({ id: t.id, title: t.title, globalKey: t.global_key, description: t.description, impact: t.impact, remediation: t.remediation, references: t.references, cves: t.cves, cwes: t.cwes, cvss: t.cvss });
    for (const f of findings) {
      const rule = `${f.source.scanner.toLowerCase()}:${f.ruleId}`;
      const byId = byRule.get(rule);
      const key = `${f.source.scanner.toLowerCase()}:${f.groupKey}`;
      if (byId) {
        matches.set(key, { template: toTemplate(byId), matchedOn: rule });
        continue;
      }
      const cve = f.cves.find((c) => byCve.has(c));
      if (cve) matches.set(key, { template: toTemplate(byCve.get(cve)!), matchedOn: cve });
    }
    return matches;
  }
}
