import type { Knex } from 'knex';
import { TAB, type TabFields } from '@service/report-model';

/**
 * Inserts tabs at the end of a report in the caller's transaction, in the order given (a report
 * template's, a document's, a retest's), each field by the tab declaration; returns their ids.
 */
export async function insertReportTabs(
  trx: Knex,
  reportId: string,
  userId: string,
  tabs: readonly TabFields[],
): Promise<string[]> {
  const ids: string[] = [];
  // Why in slices: a document may hold a thousand tabs, more than one insert should bind.
  for (let i = 0; i < tabs.length; i += 200) {
    const rows: Array<{ id: string }> = await trx('report_tabs')
      .insert(
        tabs.slice(i, i + 200).map((t, j) => ({
          ...TAB.toColumns(TAB.pick(t)),
          report_id: reportId,
          position: i + j,
          created_by: userId,
        })),
      )
      .returning('id');
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}
