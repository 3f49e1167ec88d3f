import type { Knex } from 'knex';
import { ForbiddenError } from '@service/http';
import {
  applyTemplateContent,
  FINDING_COLUMNS,
  FINDING_FIELDS,
  findingFieldsToColumns,
  findingFromColumns,
  mergeAffectedAssets,
  maxSeverity,
  severityRank,
  TEXT_LIMITS,
  type Finding,
  type FindingColumns,
  type FindingFieldName,
  type Severity,
} from '@service/report-model';
import { findingOfScanResult, type CompleteFinding } from '@service/scanners';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import type { EvidenceFiles } from '../evidence-images/evidence-files.ts';
import { evidenceCleanup } from '../evidence-images/evidence-repository.ts';
import type { FindingTemplateRepository, TemplateMatch } from '../finding-library/finding-template-repository.ts';
import { ResourceRepository } from '../resource-repository.ts';
import { TableStatistics } from '../table-statistics.ts';
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
    confidence: TemplateMatch['confidence'];
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
  return { ...findingFieldsToColumns(f), project_id: projectId, created_by: userId };
}

type FindingsDeclaration = ReturnType<typeof findingsDeclaration>;

/** Findings: the generic reads and writes, plus attaching to reports and merging scanner results. */
export class FindingRepository extends ResourceRepository<FindingsDeclaration['fields'], { report_ids: string[] }> {
  constructor(
    files: EvidenceFiles,
    private readonly templates: FindingTemplateRepository,
    private readonly statistics = new TableStatistics(),
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
      principal.tenant,
      report.id,
      principal.userId,
      // Why built batch by batch: the rows of 50,000 findings would otherwise all be held at once.
      { length: findings.length, at: (i) => findingColumns(findings[i]!, report.projectId, principal.userId) },
    );
  }

  /**
   * Inserts finding rows in batches and attaches them, in order, after the report's last finding;
   * a bulk insert has the statistics of both tables refreshed once `trx` commits (on `db`).
   */
  private async insertAttached(
    trx: Knex.Transaction,
    db: Knex,
    reportId: string,
    userId: string,
    rows: { length: number; at: (i: number) => Record<string, unknown> },
  ): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < rows.length; i += 500) {
      const batch: Record<string, unknown>[] = [];
      for (let j = i; j < Math.min(i + 500, rows.length); j++) batch.push(rows.at(j));
      const inserted = await trx('findings').insert(batch).returning('id');
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
    this.statistics.refreshAfterCommit(trx, db, { analyze: ['findings'], vacuum: ['report_findings'] }, ids.length);
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
    const grouped = new Map<string, { result: CompleteFinding; finding: Finding }>();
    for (const f of findings) {
      const base = {
        title: f.title,
        severity: f.severity,
        scanner: f.source.scanner,
        ruleId: f.ruleId,
        groupKey: f.groupKey,
      };
      if (severityRank(f.severity) < severityRank(options.minSeverity)) {
        summary.skipped += 1;
        summary.findings.push({ ...base, id: null, outcome: 'skipped', assetsAdded: 0, template: null });
        continue;
      }
      // The same group key twice in one payload (hand-written JSON) is one finding.
      const key = scannerKey(f);
      const seen = grouped.get(key);
      if (!seen) grouped.set(key, { result: f, finding: findingOfScanResult(f) });
      else seen.finding = mergeScannerFinding(seen.finding, findingOfScanResult(f)).finding;
    }
    if (grouped.size === 0) return summary;

    const existingRows = (await trx('findings as f')
      .join('report_findings as rf', 'rf.finding_id', 'f.id')
      .where('rf.report_id', report.id)
      .whereIn('f.scanner_key', [...grouped.keys()])
      .select('f.id', 'f.scanner_key', ...FINDING_COLUMNS.map((c) => `f.${c}`))) as Array<
      FindingColumns & { id: string; scanner_key: string }
    >;
    const existing = new Map(existingRows.map((r) => [r.scanner_key, { id: r.id, finding: findingFromColumns(r) }]));
    const fresh = [...grouped].filter(([key]) => !existing.has(key)).map(([, g]) => g.result);
    const matches: Map<string, TemplateMatch> =
      principal.role === 'external' ? new Map() : await this.templates.matchScanFindings(trx, fresh);

    const updates: Array<{ id: string; values: Pick<Finding, MergedField> }> = [];
    const inserts: Record<string, unknown>[] = [];
    const results: ImportedFinding[] = [];
    for (const [key, { result, finding }] of grouped) {
      const base = { scanner: result.source.scanner, ruleId: result.ruleId, groupKey: result.groupKey };
      const current = existing.get(key);
      if (current) {
        const merged = mergeScannerFinding(current.finding, finding);
        if (merged.changed) updates.push({ id: current.id, values: pick(merged.finding, MERGED_FIELDS) });
        results.push({
          ...base,
          id: current.id,
          title: current.finding.title,
          severity: current.finding.severity,
          outcome: 'merged',
          assetsAdded: merged.assetsAdded,
          template: null,
        });
        continue;
      }
      const match = matches.get(key);
      const t = match?.template;
      const created = t ? applyTemplateContent(finding, t.content) : finding;
      if (t)
        created.source = { ...created.source, templateId: t.id, ...(t.globalKey ? { templateKey: t.globalKey } : {}) };
      inserts.push({ ...findingColumns(created, report.projectId, principal.userId), scanner_key: key });
      results.push({
        ...base,
        id: null,
        title: created.title,
        severity: created.severity,
        outcome: 'created',
        assetsAdded: created.affectedAssets.length,
        template: t
          ? {
              id: t.id,
              title: t.content.title,
              key: t.globalKey,
              matchedOn: match!.matchedOn,
              detail: match!.detail,
              confidence: match!.confidence,
            }
          : null,
      });
    }

    if (updates.length > 0) await this.updateInBulk(trx, MERGED_FIELDS, updates);
    if (inserts.length > 0) {
      const ids = await this.insertAttached(trx, principal.tenant, report.id, principal.userId, {
        length: inserts.length,
        at: (i) => inserts[i]!,
      });
      let n = 0;
      for (const r of results) if (r.outcome === 'created') r.id = ids[n++]!;
    }
    summary.created = results.filter((r) => r.outcome === 'created').length;
    summary.merged = results.filter((r) => r.outcome === 'merged').length;
    summary.findings.push(...results);
    return summary;
  }

  /**
   * Sets the given fields of many findings in one statement: the rows travel as one JSON array
   * read as `findings` records, so every column keeps its type (text[], integer[], jsonb).
   */
  private async updateInBulk(
    trx: Knex.Transaction,
    fields: readonly FindingFieldName[],
    rows: ReadonlyArray<{ id: string; values: Partial<Finding> }>,
  ): Promise<void> {
    const columns = fields.map((name) => FINDING_FIELDS[name].column);
    const records = rows.map((r) => ({ id: r.id, ...findingFieldsToColumns(r.values, { jsonb: 'value' }) }));
    await trx.raw(
      `update findings f set ${columns.map(() => '?? = v.??').join(', ')}, updated_at = ${NEXT_UPDATED_AT}
       from jsonb_populate_recordset(null::findings, ?::jsonb) as v where f.id = v.id`,
      [...columns.flatMap((c) => [c, c]), JSON.stringify(records)],
    );
  }
}

/** What a re-import adds to a finding a report already has: places and evidence, CVEs and CWEs. */
const MERGED_FIELDS = ['affectedAssets', 'cves', 'cwes'] as const;
type MergedField = (typeof MERGED_FIELDS)[number];

const NEXT_UPDATED_AT =
  "greatest(date_trunc('milliseconds', clock_timestamp()), f.updated_at + interval '1 millisecond')";

function pick<T, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, value[k]])) as Pick<T, K>;
}

/**
 * A finding with another scanner result of the same rule merged in: new places appended (with
 * evidence at known places), CVEs and CWEs joined, the higher severity; nothing removed.
 */
function mergeScannerFinding(
  current: Finding,
  incoming: Finding,
): { finding: Finding; changed: boolean; assetsAdded: number } {
  const assets = mergeAffectedAssets(current.affectedAssets, incoming.affectedAssets);
  const cves = union(TEXT_LIMITS.cves, current.cves, incoming.cves);
  const cwes = union(TEXT_LIMITS.cwes, current.cwes, incoming.cwes);
  const changed = assets.changed || cves.length !== current.cves.length || cwes.length !== current.cwes.length;
  return {
    finding: {
      ...current,
      affectedAssets: assets.assets,
      cves,
      cwes,
      severity: maxSeverity(current.severity, incoming.severity),
    },
    changed,
    assetsAdded: assets.added,
  };
}
