import type { Knex } from 'knex';
import { ForbiddenError } from '@service/http';
import {
  mergeAffectedAssets,
  maxSeverity,
  severityRank,
  TEXT_LIMITS,
  type AffectedAsset,
  type Finding,
  type Severity,
} from '@service/report-model';
import { affectedAssetsOf, type CompleteFinding } from '@service/scanners';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import type { EvidenceFiles } from '../evidence-images/evidence-files.ts';
import { evidenceCleanup } from '../evidence-images/evidence-repository.ts';
import type { FindingTemplateRepository, TemplateMatch } from '../finding-library/finding-template-repository.ts';
import { ResourceRepository } from '../resource-repository.ts';
import { findingsDeclaration } from './findings-resource.ts';

export interface ScanImportOptions {
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
  template: {
    id: string;
    title: string;
    key: string | null;
    matchedOn: TemplateMatch['matchedOn'];
    detail: string;
  } | null;
}

export interface ScanImportSummary {
  created: number;
  merged: number;
  skipped: number;
  findings: ImportedFinding[];
}

/** `<scanner>:<group key>`: the identity of a scanner finding within a report across imports. */
export function scannerKey(f: CompleteFinding): string {
  return `${f.source.scanner.toLowerCase()}:${f.groupKey}`;
}

const unique = <T>(values: readonly T[]) => [...new Set(values)];
/** A union of lists kept within the model's cap for that list. */
const union = <T>(cap: number, ...lists: ReadonlyArray<readonly T[]>) => unique(lists.flat()).slice(0, cap);

/** Finding columns of a finding of the report model, for inserts. */
export function findingColumns(f: Finding, projectId: string, userId: string): Record<string, unknown> {
  return {
    project_id: projectId,
    title: f.title,
    severity: f.severity,
    status: f.status,
    cvss: JSON.stringify(f.cvss),
    cves: f.cves,
    cwes: f.cwes,
    description: f.description,
    impact: f.impact,
    remediation: f.remediation,
    references: f.references,
    affected_assets: JSON.stringify(f.affectedAssets),
    source: JSON.stringify(f.source),
    created_by: userId,
  };
}

/** Findings: the generic reads and writes, plus attaching to reports and merging scanner results. */
export class FindingRepository extends ResourceRepository {
  constructor(
    files: EvidenceFiles,
    private readonly templates: FindingTemplateRepository,
  ) {
    super(
      findingsDeclaration({
        attach: (trx, reportId, findingId, userId) => this.attach(trx, reportId, findingId, userId),
        beforeDelete: async (trx, row, principal) => {
          // Why: an external collaborator edits what is shared with them, but a finding that also
          // sits in a report they cannot see is not theirs to remove from that report.
          if (principal.role === 'external' && (await this.inInvisibleReport(trx, principal, row.id))) {
            throw new ForbiddenError(
              'forbidden',
              'This finding is also part of a report that is not shared with you; it cannot be deleted.',
            );
          }
          return evidenceCleanup(files, trx, { findingId: row.id });
        },
      }),
    );
  }

  /** The position after the last finding attached to a report. */
  async nextPosition(trx: Knex, reportId: string): Promise<number> {
    const [{ next }] = await trx('report_findings')
      .where({ report_id: reportId })
      .select(trx.raw('coalesce(max(position) + 1, 0) as next'));
    return Number(next);
  }

  /** Appends a finding to a report's findings (no-op when it is attached already). */
  async attach(trx: Knex, reportId: string, findingId: string, userId: string): Promise<void> {
    const position = await this.nextPosition(trx, reportId);
    await trx('report_findings')
      .insert({ report_id: reportId, finding_id: findingId, position, created_by: userId })
      .onConflict(['report_id', 'finding_id'])
      .ignore();
  }

  /** Creates findings of the report model in a project and attaches them, in order, to a report. */
  insertIntoReport(
    trx: Knex.Transaction,
    principal: RestPrincipal,
    report: { id: string; projectId: string },
    findings: readonly Finding[],
  ): Promise<string[]> {
    return this.insertAttached(
      trx,
      report.id,
      principal.userId,
      findings.map((f) => findingColumns(f, report.projectId, principal.userId)),
    );
  }

  /** Inserts finding rows in batches and attaches them, in order, after the report's last finding. */
  private async insertAttached(
    trx: Knex.Transaction,
    reportId: string,
    userId: string,
    rows: readonly Record<string, unknown>[],
  ): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < rows.length; i += 500) {
      const inserted = await trx('findings')
        .insert(rows.slice(i, i + 500))
        .returning('id');
      ids.push(...inserted.map((r: { id: string }) => r.id));
    }
    const next = await this.nextPosition(trx, reportId);
    const attach = ids.map((id, i) => ({
      report_id: reportId,
      finding_id: id,
      position: next + i,
      created_by: userId,
    }));
    for (let i = 0; i < attach.length; i += 1000) await trx('report_findings').insert(attach.slice(i, i + 1000));
    return ids;
  }

  private async inInvisibleReport(trx: Knex, principal: RestPrincipal, findingId: string): Promise<boolean> {
    const hidden = await trx('report_findings as rf')
      .join('reports as rr', 'rr.id', 'rf.report_id')
      .where('rf.finding_id', findingId)
      .whereNotExists((q) =>
        q
          .select(trx.raw('1'))
          .from('grants as g')
          .where('g.user_id', principal.userId)
          .andWhere((w) =>
            w
              .where((x) => x.where('g.resource_type', 'report').andWhereRaw('g.resource_id = rr.id'))
              .orWhere((x) => x.where('g.resource_type', 'project').andWhereRaw('g.resource_id = rr.project_id')),
          ),
      )
      .first('rf.id');
    return hidden !== undefined;
  }

  /**
   * Imports scanner findings into a report, like the report editor's import dialog: a finding
   * the report already has (same scanner and group key) gets the new places and evidence merged
   * in; others are created in the report's project, with a matching library template's curated
   * text when there is one (never for external collaborators: the library is not theirs), and
   * attached. Nothing is deleted or overwritten. Runs in the caller's transaction.
   */
  async mergeScanFindings(
    trx: Knex.Transaction,
    principal: RestPrincipal,
    report: { id: string; projectId: string },
    findings: readonly CompleteFinding[],
    options: ScanImportOptions,
  ): Promise<ScanImportSummary> {
    const summary: ScanImportSummary = { created: 0, merged: 0, skipped: 0, findings: [] };
    const grouped = new Map<string, CompleteFinding & { assets: AffectedAsset[] }>();
    for (const f of findings) {
      if (severityRank(f.severity) < severityRank(options.minSeverity)) {
        summary.skipped += 1;
        summary.findings.push({
          id: null,
          title: f.title,
          severity: f.severity,
          scanner: f.source.scanner,
          ruleId: f.ruleId,
          groupKey: f.groupKey,
          outcome: 'skipped',
          assetsAdded: 0,
          template: null,
        });
        continue;
      }
      // The same group key twice in one payload (hand-written JSON) is one finding.
      const key = scannerKey(f);
      const seen = grouped.get(key);
      if (!seen) grouped.set(key, { ...f, assets: affectedAssetsOf(f) });
      else {
        seen.assets = mergeAffectedAssets(seen.assets, affectedAssetsOf(f)).assets;
        seen.severity = maxSeverity(seen.severity, f.severity);
        seen.cves = union(TEXT_LIMITS.cves, seen.cves, f.cves);
        seen.cwes = union(TEXT_LIMITS.cwes, seen.cwes, f.cwes);
      }
    }
    if (grouped.size === 0) return summary;

    const existingRows = (await trx('findings as f')
      .join('report_findings as rf', 'rf.finding_id', 'f.id')
      .where('rf.report_id', report.id)
      .whereIn('f.scanner_key', [...grouped.keys()])
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
    const fresh = [...grouped.values()].filter((f) => !existing.has(scannerKey(f)));
    const matches: Map<string, TemplateMatch> =
      principal.role === 'external' ? new Map() : await this.templates.matchScanFindings(trx, fresh);

    const updates: Array<{ id: string; affected_assets: string; cves: string[]; cwes: number[] }> = [];
    const inserts: Record<string, unknown>[] = [];
    const results: ImportedFinding[] = [];
    for (const [key, f] of grouped) {
      const base = {
        title: f.title,
        severity: f.severity,
        scanner: f.source.scanner,
        ruleId: f.ruleId,
        groupKey: f.groupKey,
      };
      const current = existing.get(key);
      if (current) {
        const merged = mergeAffectedAssets(current.affected_assets ?? [], f.assets);
        const cves = union(TEXT_LIMITS.cves, current.cves, f.cves);
        const cwes = union(TEXT_LIMITS.cwes, current.cwes, f.cwes);
        if (merged.changed || cves.length !== current.cves.length || cwes.length !== current.cwes.length) {
          updates.push({ id: current.id, affected_assets: JSON.stringify(merged.assets), cves, cwes });
        }
        results.push({
          ...base,
          id: current.id,
          title: current.title,
          severity: current.severity,
          outcome: 'merged',
          assetsAdded: merged.added,
          template: null,
        });
        continue;
      }
      const match = matches.get(key);
      const t = match?.template;
      const description = [f.summary, f.description].filter((x) => x && x.trim()).join('\n\n');
      inserts.push({
        ...findingColumns(
          {
            title: t?.title ?? f.title,
            severity: f.severity,
            status: 'open',
            cvss: f.cvss.length ? f.cvss : (t?.cvss ?? []),
            cves: union(TEXT_LIMITS.cves, f.cves, t?.cves ?? []),
            cwes: union(TEXT_LIMITS.cwes, f.cwes, t?.cwes ?? []),
            description: t?.description || description,
            impact: t?.impact || f.impact || '',
            remediation: t?.remediation || f.remediation || '',
            references: union(TEXT_LIMITS.references, t?.references ?? [], f.references),
            affectedAssets: f.assets,
            source: {
              kind: 'scanner',
              scanner: f.source.scanner,
              ...(f.source.version ? { scannerVersion: f.source.version } : {}),
              ruleId: f.ruleId,
              ...(t ? { templateId: t.id, ...(t.globalKey ? { templateKey: t.globalKey } : {}) } : {}),
            },
          },
          report.projectId,
          principal.userId,
        ),
        scanner_key: key,
      });
      results.push({
        ...base,
        id: null,
        title: t?.title ?? f.title,
        outcome: 'created',
        assetsAdded: f.assets.length,
        template: t
          ? { id: t.id, title: t.title, key: t.globalKey, matchedOn: match!.matchedOn, detail: match!.detail }
          : null,
      });
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
      const ids = await this.insertAttached(trx, report.id, principal.userId, inserts);
      let n = 0;
      for (const r of results) if (r.outcome === 'created') r.id = ids[n++]!;
    }
    summary.created = results.filter((r) => r.outcome === 'created').length;
    summary.merged = results.filter((r) => r.outcome === 'merged').length;
    summary.findings.push(...results);
    return summary;
  }
}
