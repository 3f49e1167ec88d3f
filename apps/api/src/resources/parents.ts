import type { Knex } from 'knex';
import { NotFoundError, ValidationError } from '@service/http';
import type { RestPrincipal } from '../rest/rest-pipeline.ts';
import type { RowAccess } from './access.ts';
import { grantFromLevel } from './access.ts';
import { ResourceStore } from './resource-store.ts';
import { clientVisibility, findingVisibility, projectVisibility, reportChildVisibility, reportVisibility } from './visibility.ts';

const opts = (label: string) => ({ label, order: [] as Array<[string, 'asc' | 'desc']>, filters: {}, searchable: false });

/** Visible-row lookups for the rows new rows are created under or attached to. */
export const parentStores = {
  client: new ResourceStore('clients', clientVisibility, opts('client')),
  project: new ResourceStore('projects', projectVisibility, opts('project')),
  report: new ResourceStore('reports', reportVisibility, opts('report')),
  finding: new ResourceStore('findings', findingVisibility, opts('finding')),
  'report tab': new ResourceStore('report_tabs', reportChildVisibility, opts('report tab')),
};

/**
 * The visible parent a create refers to, and who owns it. A parent the caller may not see is
 * reported like a missing one, naming the field.
 */
export async function resolveParentRow(
  trx: Knex,
  principal: RestPrincipal,
  kind: keyof typeof parentStores,
  id: unknown,
  field: string,
): Promise<{ row: Record<string, unknown>; access: RowAccess }> {
  if (typeof id !== 'string') throw new ValidationError(`The body field /${field} is required.`, [{ path: `/${field}`, message: 'is required' }]);
  const row = await parentStores[kind].find(trx, principal, id);
  if (!row) throw new NotFoundError(`The ${kind} ${id} (${field}) was not found.`);
  return { row, access: { clientId: row._client_id, grant: grantFromLevel(row._grant) } };
}

/** The position after the last finding attached to a report. */
export async function nextFindingPosition(trx: Knex, reportId: string): Promise<number> {
  const [{ next }] = await trx('report_findings').where({ report_id: reportId }).select(trx.raw('coalesce(max(position) + 1, 0) as next'));
  return Number(next);
}
