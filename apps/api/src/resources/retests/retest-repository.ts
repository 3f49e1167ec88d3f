import type { Knex } from 'knex';
import {
  freshRetestResult,
  retestStatusOfAssets,
  type AffectedAsset,
  type RetestAsset,
  type RetestResult,
  type RetestStatus,
  type RetestStatusSource,
} from '@service/report-model';
import { nextUpdatedAt, ResourceRepository } from '../resource-repository.ts';
import {
  retestResultsDeclaration,
  type ChangedRetestRow,
  type RetestResultExtra,
  type RetestResultsDeclaration,
} from './retest-results-resource.ts';

/** Today as a model date (`YYYY-MM-DD`, UTC): the day of a retest decision. */
export function retestDay(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** A result as its row holds it (without evidence, which lives in `evidence_images`). */
export type StoredRetestResult = Omit<RetestResult, 'evidence'>;

export interface RetestResultRecord {
  id: string;
  findingId: string;
  result: StoredRetestResult;
}

interface ResultColumns {
  id: string;
  finding_id: string;
  status: RetestStatus;
  status_set_by: RetestStatusSource;
  status_note: string;
  notes: string;
  retested_at: Date | string | null;
  risk_accepted: boolean;
  risk_accepted_note: string;
  assets: RetestAsset[];
}

const RESULT_COLUMNS = [
  'id',
  'finding_id',
  'status',
  'status_set_by',
  'status_note',
  'notes',
  'retested_at',
  'risk_accepted',
  'risk_accepted_note',
  'assets',
] as const;

function day(value: Date | string | null): string | null {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return typeof value === 'string' ? value.slice(0, 10) : null;
}

export function resultOfRow(row: ResultColumns): StoredRetestResult {
  return {
    status: row.status,
    statusSetBy: row.status_set_by,
    statusNote: row.status_note,
    notes: row.notes,
    retestedAt: day(row.retested_at),
    riskAccepted: row.risk_accepted,
    riskAcceptedNote: row.risk_accepted_note,
    assets: row.assets,
  };
}

export function resultToColumns(result: StoredRetestResult): Record<string, unknown> {
  return {
    status: result.status,
    status_set_by: result.statusSetBy,
    status_note: result.statusNote,
    notes: result.notes,
    retested_at: result.retestedAt,
    risk_accepted: result.riskAccepted,
    risk_accepted_note: result.riskAcceptedNote,
    assets: JSON.stringify(result.assets),
  };
}

/**
 * Retest results: the generic reads and the PATCH (with who set the status and the status that
 * follows from the assets), plus the writes retests and re-scans make.
 */
export class RetestResultRepository extends ResourceRepository<RetestResultsDeclaration['fields'], RetestResultExtra> {
  constructor() {
    super(
      retestResultsDeclaration({
        afterChange: (trx, row, changed, sent) => this.afterChange(trx, row, changed, sent),
      }),
    );
  }

  /**
   * After a PATCH wrote what was sent: a status sent without `statusSetBy` was set by a person;
   * a result whose status follows from its assets gets that status when its assets (or its
   * `statusSetBy`) changed and no status was sent; a change of status or assets is a decision of
   * today unless `retestedAt` was sent.
   */
  private async afterChange(
    trx: Knex.Transaction,
    row: ChangedRetestRow,
    changed: Record<string, unknown>,
    sent: Record<string, unknown>,
  ): Promise<void> {
    const current = row;
    const values: Record<string, unknown> = {};
    const statusSetBy = (changed.statusSetBy as RetestStatusSource | undefined) ?? current.status_set_by;
    if ('status' in changed && sent.statusSetBy === undefined) values.status_set_by = 'person';
    if (sent.status === undefined && statusSetBy === 'assets' && ('assets' in changed || 'statusSetBy' in changed))
      values.status = retestStatusOfAssets(
        (changed.assets as RetestAsset[] | undefined) ?? current.assets,
        current.status,
      );
    if (('status' in changed || 'assets' in changed) && sent.retestedAt === undefined) values.retested_at = retestDay();
    if (Object.keys(values).length > 0) await trx('retest_results').where({ id: current.id }).update(values);
  }

  resultsOf = readRetestResults;
  insertResults = insertRetestResults;
  ensureResults = ensureRetestResults;

  /** Writes the results a re-scan changed, each with today's date and a new `updatedAt`. */
  async writeDecisions(
    trx: Knex,
    decisions: ReadonlyArray<{ id: string; status: RetestStatus; assets: RetestAsset[] }>,
  ): Promise<void> {
    const today = retestDay();
    for (const d of decisions)
      await trx('retest_results')
        .where({ id: d.id })
        .update({
          status: d.status,
          assets: JSON.stringify(d.assets),
          retested_at: today,
          updated_at: nextUpdatedAt(trx),
        });
  }
}

export function withoutEvidence(result: RetestResult): StoredRetestResult {
  const { evidence: _evidence, ...rest } = result;
  return rest;
}

/** Inserts results for findings attached to a retest report; returns their ids by finding. */
export async function insertRetestResults(
  trx: Knex,
  reportId: string,
  userId: string,
  results: ReadonlyArray<{ findingId: string; result: StoredRetestResult }>,
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (let i = 0; i < results.length; i += 500) {
    const rows: Array<{ id: string; finding_id: string }> = await trx('retest_results')
      .insert(
        results.slice(i, i + 500).map((r) => ({
          report_id: reportId,
          finding_id: r.findingId,
          ...resultToColumns(r.result),
          created_by: userId,
        })),
      )
      .returning(['id', 'finding_id']);
    for (const row of rows) ids.set(row.finding_id, row.id);
  }
  return ids;
}

/**
 * Gives every finding of a retest report that has no result yet one: it was first seen in the
 * retest (attached by hand or by an import), so it is `new`, on every asset. No-op for reports
 * that are not retests.
 */
export async function ensureRetestResults(trx: Knex, reportId: string, userId: string): Promise<void> {
  const missing: Array<{ finding_id: string; affected_assets: AffectedAsset[] }> = await trx('report_findings as rf')
    .join('reports as r', 'r.id', 'rf.report_id')
    .join('findings as f', 'f.id', 'rf.finding_id')
    .where('rf.report_id', reportId)
    .andWhere('r.kind', 'retest')
    .whereNotExists((q) =>
      q
        .select(trx.raw('1'))
        .from('retest_results as x')
        .whereRaw('x.report_id = rf.report_id and x.finding_id = rf.finding_id'),
    )
    .orderBy('rf.position')
    .select('rf.finding_id', 'f.affected_assets');
  if (missing.length === 0) return;
  await insertRetestResults(
    trx,
    reportId,
    userId,
    missing.map((m) => ({
      findingId: m.finding_id,
      result: withoutEvidence(freshRetestResult(m.affected_assets, 'new')),
    })),
  );
}

/** The results of a retest report, by finding. */
export async function readRetestResults(db: Knex, reportId: string): Promise<Map<string, RetestResultRecord>> {
  const rows = (await db('retest_results')
    .where({ report_id: reportId })
    .select(...RESULT_COLUMNS)) as ResultColumns[];
  return new Map(rows.map((r) => [r.finding_id, { id: r.id, findingId: r.finding_id, result: resultOfRow(r) }]));
}
