import type { Knex } from 'knex';

/**
 * The positions of a report's findings: always 0..n-1, one finding each (the tenant migration
 * "order_and_rounds" makes `(report_id, position)` unique and closes the gaps a removal leaves).
 * Every change of them runs with the report locked (`lockReportOrders`), taken before any row of
 * `report_findings` or `findings` it writes, so parallel creates, attachments and moves of one
 * report wait for each other in turn instead of reading the same last position, and two writers
 * never lock the same rows in opposite orders.
 */

/**
 * Locks the reports whose finding order a change is about to alter, in id order. Why `no key
 * update`: it serializes every change of the order (the report's own updates lock it too) without
 * blocking inserts of rows that merely refer to the report (tabs, links).
 */
export async function lockReportOrders(trx: Knex, reportIds: readonly string[]): Promise<void> {
  const ids = [...new Set(reportIds)].sort();
  if (ids.length === 0) return;
  await trx.raw('select 1 from reports where id = any(?::uuid[]) order by id for no key update', [ids]);
}

/** The number of findings attached to a report (the position after its last one). */
export async function nextPosition(trx: Knex, reportId: string): Promise<number> {
  const [{ next }] = await trx('report_findings')
    .where({ report_id: reportId })
    .select(trx.raw('coalesce(max(position) + 1, 0) as next'));
  return Number(next);
}

/**
 * Makes room for a finding at `wanted` (kept within 0..n): those at and after it move one down,
 * in one statement. Returns the position to insert at. The report must be locked.
 */
export async function openPosition(trx: Knex, reportId: string, wanted: number): Promise<number> {
  const position = Math.min(Math.max(0, wanted), await nextPosition(trx, reportId));
  await trx('report_findings')
    .where({ report_id: reportId })
    .andWhere('position', '>=', position)
    .increment('position', 1);
  return position;
}

/**
 * Moves one attached finding from `from` to `wanted` (kept within 0..n-1), the findings between
 * moving one place towards where it was, in one statement. Returns the position it now has. The
 * report must be locked.
 */
export async function movePosition(
  trx: Knex,
  reportId: string,
  reportFindingId: string,
  from: number,
  wanted: number,
): Promise<number> {
  const to = Math.min(Math.max(0, wanted), (await nextPosition(trx, reportId)) - 1);
  if (to === from) return to;
  await trx.raw(
    `update report_findings set position = case when id = ? then ?::int else position + ?::int end
      where report_id = ? and position between ? and ?`,
    [reportFindingId, to, to < from ? 1 : -1, reportId, Math.min(from, to), Math.max(from, to)],
  );
  return to;
}
