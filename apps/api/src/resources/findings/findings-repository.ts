import type { Knex } from 'knex';
import { ForbiddenError } from '@service/http';
import {
  FINDING_COLUMNS,
  FINDING_FIELDS,
  findingFieldsToColumns,
  SEVERITIES,
  type Finding,
  type FindingFieldName,
} from '@service/report-model';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import type { StoredFiles } from '@service/storage';
import { bulkStep, count } from '../bulk-work.ts';
import { evidenceCleanup } from '../evidence-images/evidence-repository.ts';
import type { MatchedScanResult } from '../finding-library/finding-template-repository.ts';
import { lockReportOrders, nextPosition } from '../report-findings/report-order.ts';
import { ResourceRepository } from '../resource-repository.ts';
import { ensureRetestResults } from '../retests/retest-repository.ts';
import { TableStatistics } from '../table-statistics.ts';
import { shareLevelSql } from '../visibility.ts';
import { findingsDeclaration } from './findings-resource.ts';
import {
  groupByKey,
  importedFindings,
  keepFromSeverity,
  planScanMerge,
  type ExistingFinding,
  type ExistingFindings,
  type MergeTarget,
  type ResultGroup,
  type ScanImportOptions,
  type ScanImportSummary,
} from './scan-merge-plan.ts';

/**
 * Rows per insert of bulk work. Why 250: each finding row computes its search document and adds
 * its words to the search index, so one statement of 250 stays well inside the bulk time limit
 * on a busy machine, and 250 rows of 16 columns keep the statement's parameters few.
 */
const INSERT_BATCH = 250;
const ATTACH_BATCH = 1000;

/** Finding columns of a finding of the report model, for inserts. */
export function findingColumns(f: Finding, projectId: string, userId: string): Record<string, unknown> {
  return { ...findingFieldsToColumns(f), project_id: projectId, created_by: userId };
}

type FindingsDeclaration = ReturnType<typeof findingsDeclaration>;

/** Findings: the generic reads and writes, plus attaching to reports and merging scanner results. */
export class FindingRepository extends ResourceRepository<FindingsDeclaration['fields'], { report_ids: string[] }> {
  constructor(
    files: StoredFiles,
    private readonly statistics = new TableStatistics(),
  ) {
    super(
      findingsDeclaration({
        attach: (trx, reportId, findingId, userId) => this.attach(trx, reportId, findingId, userId),
        lockReports: (trx, findingId) => this.lockReportsOf(trx, findingId),
        reorder: async (trx, findingId) =>
          this.orderBySeverity(
            trx,
            (await trx('report_findings').where({ finding_id: findingId }).pluck('report_id')) as string[],
          ),
        beforeDelete: async (trx, row, principal) => {
          // Why: an external collaborator edits what is shared with them, but a finding that also
          // sits in a report they cannot see is not theirs to remove from that report.
          if (principal.role === 'external' && (await this.inInvisibleReport(trx, principal, row.id))) {
            throw new ForbiddenError(
              'forbidden',
              'This finding is also part of a report that is not shared with you; it cannot be deleted.',
            );
          }
          return evidenceCleanup(files, trx, principal, { findingId: row.id });
        },
      }),
    );
  }

  /** Adds a finding to a report's findings, in its place (no-op when it is attached already). */
  async attach(trx: Knex, reportId: string, findingId: string, userId: string): Promise<void> {
    await lockReportOrders(trx, [reportId]);
    const position = await nextPosition(trx, reportId);
    await trx('report_findings')
      .insert({ report_id: reportId, finding_id: findingId, position, created_by: userId })
      .onConflict(['report_id', 'finding_id'])
      .ignore();
    // Why: a finding added to a retest was first seen in the retest; it gets its result (`new`).
    await ensureRetestResults(trx, reportId, userId);
    await this.orderBySeverity(trx, [reportId]);
  }

  /** Locks the reports a finding is attached to, before a change that moves it in them or removes it. */
  async lockReportsOf(trx: Knex, findingId: string): Promise<void> {
    await lockReportOrders(trx, await trx('report_findings').where({ finding_id: findingId }).pluck('report_id'));
  }

  /**
   * Puts the findings of those reports that are kept in severity order (`finding_order`
   * `severity`) in that order: worst severity first, then the highest CVSS base score of the
   * newest version, then title; ties keep their order. One statement; rows already in their
   * place are not written. Reports in manual order are left alone.
   */
  async orderBySeverity(trx: Knex, reportIds: readonly string[]): Promise<void> {
    if (reportIds.length === 0) return;
    await trx.raw(
      `update report_findings rf set position = o.n
         from (select rf2.id, row_number() over (partition by rf2.report_id order by
                 array_position(?::text[], f.severity) desc,
                 (select (e->>'baseScore')::numeric from jsonb_array_elements(f.cvss) e
                   where e->>'baseScore' is not null order by e->>'version' desc limit 1) desc nulls last,
                 lower(f.title), f.title, rf2.position, rf2.id) - 1 as n
                 from report_findings rf2
                 join findings f on f.id = rf2.finding_id
                 join reports r on r.id = rf2.report_id and r.finding_order = 'severity'
                where rf2.report_id = any(?::uuid[])) o
        where rf.id = o.id and rf.position <> o.n`,
      [[...SEVERITIES], [...new Set(reportIds)]],
    );
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
    for (let i = 0; i < rows.length; i += INSERT_BATCH) {
      const batch: Record<string, unknown>[] = [];
      const end = Math.min(i + INSERT_BATCH, rows.length);
      for (let j = i; j < end; j++) batch.push(rows.at(j));
      const inserted = await bulkStep(
        `inserting findings ${count(i + 1)} to ${count(end)} of ${count(rows.length)}`,
        () => trx('findings').insert(batch).returning('id'),
      );
      ids.push(...inserted.map((r: { id: string }) => r.id));
    }
    await lockReportOrders(trx, [reportId]);
    const next = await nextPosition(trx, reportId);
    const attach = ids.map((id, i) => ({
      report_id: reportId,
      finding_id: id,
      position: next + i,
      created_by: userId,
    }));
    for (let i = 0; i < attach.length; i += ATTACH_BATCH)
      await bulkStep(`attaching findings ${count(i + 1)} to ${count(Math.min(i + ATTACH_BATCH, attach.length))}`, () =>
        trx('report_findings').insert(attach.slice(i, i + ATTACH_BATCH)),
      );
    this.statistics.refreshAfterCommit(trx, db, { analyze: ['findings'], vacuum: ['report_findings'] }, ids.length);
    return ids;
  }

  private async inInvisibleReport(trx: Knex, principal: RestPrincipal, findingId: string): Promise<boolean> {
    const hidden = await trx('report_findings as rf')
      .join('reports as rr', 'rr.id', 'rf.report_id')
      .where('rf.finding_id', findingId)
      .whereRaw(`${shareLevelSql({ project: 'rr.project_id', report: 'rr.id' })} is null`, { uid: principal.userId })
      .first('rf.id');
    return hidden !== undefined;
  }

  /**
   * Imports scanner results (each with the library template it matched, see
   * `FindingTemplateRepository.matchScanResults`) into a report, like the report editor's import
   * dialog, as `planScanMerge` decides:
   * - a result the report already has (same scanner and group key) merges its new places and
   *   evidence into that finding;
   * - results that match one library template become one finding (several scanner rules for
   *   one weakness), also with a finding the report already has from that template;
   * - others are created in the report's project, with the matching template's curated text
   *   in the report's language, and attached in their place.
   * Nothing is deleted or overwritten. Runs in the caller's transaction.
   */
  async mergeScanFindings(
    trx: Knex.Transaction,
    principal: RestPrincipal,
    report: { id: string; projectId: string; language: string },
    results: readonly MatchedScanResult[],
    options: ScanImportOptions,
  ): Promise<ScanImportSummary> {
    const { kept, skipped } = keepFromSeverity(results, options.minSeverity);
    const summary: ScanImportSummary = { created: 0, merged: 0, skipped: skipped.length, findings: skipped, notes: [] };
    const groups = groupByKey(kept);
    if (groups.length === 0) return summary;
    const existing =
      (options.intoExisting ?? true) ? await this.existingFindings(trx, report.id, groups) : NO_EXISTING_FINDINGS;
    const plan = planScanMerge(groups, existing, report.language);
    const ids = await this.writeScanMerge(trx, principal, report, plan.targets);
    summary.findings.push(...importedFindings(plan.targets, ids));
    summary.notes.push(...plan.notes);
    summary.created = summary.findings.filter((r) => r.outcome === 'created').length;
    summary.merged = summary.findings.filter((r) => r.outcome === 'merged').length;
    return summary;
  }

  /** The report's findings that have a scanner key of the groups, and those that came from their templates. */
  private async existingFindings(
    trx: Knex.Transaction,
    reportId: string,
    groups: readonly ResultGroup[],
  ): Promise<ExistingFindings> {
    const inReport = () =>
      trx('findings as f')
        .join('report_findings as rf', 'rf.finding_id', 'f.id')
        .where('rf.report_id', reportId)
        .select('f.id', 'f.scanner_keys', ...FINDING_COLUMNS.map((c) => `f.${c}`));
    const byKey = new Map<string, ExistingFinding>();
    const keyed = (await inReport().whereRaw('f.scanner_keys && ?::text[]', [
      groups.map((g) => g.key),
    ])) as ExistingFinding[];
    for (const row of keyed) for (const k of row.scanner_keys) byKey.set(k, row);
    const templateIds = [
      ...new Set(groups.filter((g) => !byKey.has(g.key)).flatMap((g) => (g.match ? [g.match.template.id] : []))),
    ];
    const byTemplate = new Map<string, ExistingFinding>();
    if (templateIds.length > 0) {
      const rows = (await inReport().whereRaw("f.source->>'templateId' = any(?::text[])", [
        templateIds,
      ])) as ExistingFinding[];
      for (const row of rows) if (!byTemplate.has(row.source.templateId!)) byTemplate.set(row.source.templateId!, row);
    }
    return { byKey, byTemplate };
  }

  /** Writes a merge plan: the existing findings it adds to in one statement, the new ones attached in order. */
  private async writeScanMerge(
    trx: Knex.Transaction,
    principal: RestPrincipal,
    report: { id: string; projectId: string },
    targets: readonly MergeTarget[],
  ): Promise<Map<MergeTarget, string>> {
    const updates = targets
      .filter((t) => t.existingId !== null && t.changed)
      .map((t) => ({ id: t.existingId!, values: pick(t.finding, MERGED_FIELDS), keys: t.keys }));
    if (updates.length > 0) await this.updateInBulk(trx, MERGED_FIELDS, updates);
    const created = targets.filter((t) => t.existingId === null);
    const ids = new Map<MergeTarget, string>();
    if (created.length > 0) {
      const inserted = await this.insertAttached(trx, principal.tenant, report.id, principal.userId, {
        length: created.length,
        at: (i) => ({
          ...findingColumns(created[i]!.finding, report.projectId, principal.userId),
          scanner_key: created[i]!.keys[0],
          scanner_keys: created[i]!.keys,
        }),
      });
      for (const [i, t] of created.entries()) ids.set(t, inserted[i]!);
    }
    await this.orderBySeverity(trx, [report.id]);
    return ids;
  }

  /**
   * Sets the given fields of many findings in one statement: the rows travel as one JSON array
   * read as `findings` records, so every column keeps its type (text[], integer[], jsonb).
   */
  private async updateInBulk(
    trx: Knex.Transaction,
    fields: readonly FindingFieldName[],
    rows: ReadonlyArray<{ id: string; values: Partial<Finding>; keys: string[] }>,
  ): Promise<void> {
    const columns = [...fields.map((name) => FINDING_FIELDS[name].column), 'scanner_keys'];
    const records = rows.map((r) => ({
      id: r.id,
      ...findingFieldsToColumns(r.values, { jsonb: 'value' }),
      scanner_keys: r.keys,
    }));
    await trx.raw(
      `update findings f set ${columns.map(() => '?? = v.??').join(', ')}, updated_at = ${NEXT_UPDATED_AT}
       from jsonb_populate_recordset(null::findings, ?::jsonb) as v where f.id = v.id`,
      [...columns.flatMap((c) => [c, c]), JSON.stringify(records)],
    );
  }
}

/** What a re-import adds to a finding a report already has: places and evidence, CVEs and CWEs. */
const MERGED_FIELDS = ['affectedAssets', 'cves', 'cwes'] as const;

const NO_EXISTING_FINDINGS: ExistingFindings = { byKey: new Map(), byTemplate: new Map() };

const NEXT_UPDATED_AT =
  "greatest(date_trunc('milliseconds', clock_timestamp()), f.updated_at + interval '1 millisecond')";

function pick<T, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, value[k]])) as Pick<T, K>;
}
