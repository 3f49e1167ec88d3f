import type { Knex } from 'knex';
import type { CompleteFinding } from '@service/scanners';
import { nextFindingPosition } from '../parents.ts';
import { assetsOf, mergeAssets, type AffectedAsset } from './affected-assets.ts';

const SEVERITY_RANK = { info: 0, low: 1, medium: 2, high: 3, critical: 4 } as const;
type Severity = keyof typeof SEVERITY_RANK;

export interface ImportOptions {
  /** Findings below this severity are skipped. */
  minSeverity: Severity;
}

export interface ImportedFinding {
  id: string | null;
  title: string;
  severity: Severity;
  scanner: string;
  ruleId: string;
  groupKey: string;
  outcome: 'created' | 'merged' | 'skipped';
  /** Places (host, port, URL...) added to the finding by this import. */
  assetsAdded: number;
  template: { id: string; title: string; matchedOn: string } | null;
}

export interface ImportSummary {
  created: number;
  merged: number;
  skipped: number;
  findings: ImportedFinding[];
}

interface TemplateRow {
  id: string;
  title: string;
  severity: Severity;
  description: string;
  impact: string;
  remediation: string;
  references: string[];
  cves: string[];
  cwes: number[];
  cvss: unknown[];
  scanner_rules: string[];
  global_key: string | null;
}

/** `<scanner>:<group key>`: the identity of a scanner finding within a report across imports. */
export function scannerKey(f: CompleteFinding): string {
  return `${f.source.scanner.toLowerCase()}:${f.groupKey}`;
}

const unique = <T>(values: T[]) => [...new Set(values)];

/**
 * Picks the library template for a scanner finding: one that declares the scanner's rule id
 * wins over one that shares a CVE; ties go to the oldest template, so the choice is stable.
 */
function matchTemplate(f: CompleteFinding, byRule: Map<string, TemplateRow>, byCve: Map<string, TemplateRow>): { template: TemplateRow; matchedOn: string } | null {
  const rule = `${f.source.scanner.toLowerCase()}:${f.ruleId}`;
  const t = byRule.get(rule);
  if (t) return { template: t, matchedOn: rule };
  for (const cve of f.cves) {
    const c = byCve.get(cve);
    if (c) return { template: c, matchedOn: cve };
  }
  return null;
}

/**
 * Imports normalized findings into a report, like the report editor's import dialog: a finding
 * the report already has (same scanner and group key) gets the new affected places and evidence
 * merged in; others are created in the report's project, with a matching library template's
 * curated text when there is one, and attached to the report. Nothing is deleted or overwritten.
 * Runs in the caller's transaction.
 */
export async function importFindings(
  trx: Knex.Transaction,
  report: { id: string; projectId: string },
  findings: CompleteFinding[],
  options: ImportOptions,
  userId: string,
): Promise<ImportSummary> {
  const summary: ImportSummary = { created: 0, merged: 0, skipped: 0, findings: [] };
  const wanted: CompleteFinding[] = [];
  for (const f of findings) {
    if (SEVERITY_RANK[f.severity] >= SEVERITY_RANK[options.minSeverity]) {
      wanted.push(f);
      continue;
    }
    summary.skipped += 1;
    summary.findings.push({ id: null, title: f.title, severity: f.severity, scanner: f.source.scanner, ruleId: f.ruleId, groupKey: f.groupKey, outcome: 'skipped', assetsAdded: 0, template: null });
  }
  if (wanted.length === 0) return summary;

  // The same group key twice in one payload (hand-written JSON) is one finding.
  const grouped = new Map<string, CompleteFinding & { assets: AffectedAsset[] }>();
  for (const f of wanted) {
    const key = scannerKey(f);
    const seen = grouped.get(key);
    if (!seen) grouped.set(key, { ...f, assets: assetsOf(f) });
    else {
      seen.assets = mergeAssets(seen.assets, assetsOf(f)).assets;
      if (SEVERITY_RANK[f.severity] > SEVERITY_RANK[seen.severity]) seen.severity = f.severity;
      seen.cves = unique([...seen.cves, ...f.cves]);
      seen.cwes = unique([...seen.cwes, ...f.cwes]);
    }
  }
  const keys = [...grouped.keys()];

  const existingRows = (await trx('findings as f')
    .join('report_findings as rf', 'rf.finding_id', 'f.id')
    .where('rf.report_id', report.id)
    .whereIn('f.scanner_key', keys)
    .select('f.id', 'f.scanner_key', 'f.affected_assets', 'f.cves', 'f.cwes', 'f.title', 'f.severity')) as Array<{
    id: string;
    scanner_key: string;
    affected_assets: AffectedAsset[];
    cves: string[];
    cwes: number[];
    title: string;
    severity: Severity;
  }>;
  const existing = new Map(existingRows.map((r) => [r.scanner_key, r]));

  const rules = unique([...grouped.values()].filter((f) => !existing.has(scannerKey(f))).map((f) => `${f.source.scanner.toLowerCase()}:${f.ruleId}`));
  const cves = unique([...grouped.values()].filter((f) => !existing.has(scannerKey(f))).flatMap((f) => f.cves));
  const templates = (rules.length || cves.length
    ? await trx('finding_templates')
        .where((w) => w.whereRaw('scanner_rules && ?::text[]', [rules]).orWhereRaw('cves && ?::text[]', [cves]))
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
    : []) as TemplateRow[];
  const byRule = new Map<string, TemplateRow>();
  const byCve = new Map<string, TemplateRow>();
  for (const t of templates) {
    for (const r of t.scanner_rules) if (!byRule.has(r)) byRule.set(r, t);
    for (const c of t.cves) if (!byCve.has(c)) byCve.set(c, t);
  }

  const updates: Array<{ id: string; affected_assets: string; cves: string[]; cwes: number[] }> = [];
  const inserts: Record<string, unknown>[] = [];
  const results: ImportedFinding[] = [];
  for (const [key, f] of grouped) {
    const base = { title: f.title, severity: f.severity, scanner: f.source.scanner, ruleId: f.ruleId, groupKey: f.groupKey };
    const current = existing.get(key);
    if (current) {
      const merged = mergeAssets(current.affected_assets ?? [], f.assets);
      const newCves = unique([...current.cves, ...f.cves]);
      const newCwes = unique([...current.cwes, ...f.cwes]);
      if (merged.changed || newCves.length !== current.cves.length || newCwes.length !== current.cwes.length) {
        updates.push({ id: current.id, affected_assets: JSON.stringify(merged.assets), cves: newCves, cwes: newCwes });
      }
      results.push({ ...base, id: current.id, title: current.title, severity: current.severity, outcome: 'merged', assetsAdded: merged.added, template: null });
      continue;
    }
    const match = matchTemplate(f, byRule, byCve);
    const t = match?.template;
    const description = [f.summary, f.description].filter((x) => x && x.trim()).join('\n\n');
    inserts.push({
      project_id: report.projectId,
      title: t?.title ?? f.title,
      severity: f.severity,
      status: 'open',
      cvss: JSON.stringify(f.cvss.length ? f.cvss : (t?.cvss ?? [])),
      cves: unique([...f.cves, ...(t?.cves ?? [])]),
      cwes: unique([...f.cwes, ...(t?.cwes ?? [])]),
      description: t?.description || description,
      impact: t?.impact || f.impact || '',
      remediation: t?.remediation || f.remediation || '',
      references: unique([...(t?.references ?? []), ...f.references]),
      affected_assets: JSON.stringify(f.assets),
      source: JSON.stringify({
        kind: 'scanner',
        scanner: f.source.scanner,
        ...(f.source.version ? { scannerVersion: f.source.version } : {}),
        ruleId: f.ruleId,
        ...(t ? { templateId: t.id, ...(t.global_key ? { templateKey: t.global_key } : {}) } : {}),
      }),
      scanner_key: key,
      created_by: userId,
    });
    results.push({ ...base, id: null, title: t?.title ?? f.title, outcome: 'created', assetsAdded: f.assets.length, template: t ? { id: t.id, title: t.title, matchedOn: match!.matchedOn } : null });
  }

  if (updates.length > 0) {
    // One statement for every merged finding.
    await trx.raw(
      `update findings f set affected_assets = v.affected_assets::jsonb, cves = v.cves, cwes = v.cwes,
         updated_at = greatest(date_trunc('milliseconds', clock_timestamp()), f.updated_at + interval '1 millisecond')
       from json_to_recordset(?::json) as v(id uuid, affected_assets text, cves text[], cwes integer[])
       where f.id = v.id`,
      [JSON.stringify(updates)],
    );
  }
  if (inserts.length > 0) {
    const ids: string[] = [];
    for (let i = 0; i < inserts.length; i += 500) {
      const rows = await trx('findings').insert(inserts.slice(i, i + 500)).returning('id');
      ids.push(...rows.map((r: { id: string }) => r.id));
    }
    const next = await nextFindingPosition(trx, report.id);
    const attach = ids.map((id, i) => ({ report_id: report.id, finding_id: id, position: next + i, created_by: userId }));
    for (let i = 0; i < attach.length; i += 1000) await trx('report_findings').insert(attach.slice(i, i + 1000));
    let n = 0;
    for (const r of results) if (r.outcome === 'created') r.id = ids[n++]!;
  }
  summary.created = results.filter((r) => r.outcome === 'created').length;
  summary.merged = results.filter((r) => r.outcome === 'merged').length;
  summary.findings.push(...results);
  return summary;
}
