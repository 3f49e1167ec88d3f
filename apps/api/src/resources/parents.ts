import type { Knex } from 'knex';
import { ValidationError } from '@service/http';
import type { RestPrincipal } from '../rest/rest-pipeline.ts';
import type { RowAccess } from './access.ts';
import { invalidReference } from './invalid-reference.ts';
import type { Row } from './resource-declaration.ts';
import { ResourceRepository } from './resource-repository.ts';
import {
  clientVisibility,
  findingVisibility,
  projectVisibility,
  reportChildVisibility,
  reportVisibility,
  type Visibility,
} from './visibility.ts';

const reader = (table: string, label: string, visibility: Visibility) =>
  new ResourceRepository({
    name: table,
    schemaName: '',
    label,
    tag: '',
    description: '',
    table,
    visibility,
    fields: {},
    internalColumns: ['*'],
    searchable: false,
  });

/** Visible-row lookups for the rows new rows are created under or attached to. */
const parentReaders = {
  client: reader('clients', 'client', clientVisibility),
  project: reader('projects', 'project', projectVisibility),
  report: reader('reports', 'report', reportVisibility),
  finding: reader('findings', 'finding', findingVisibility),
  'report tab': reader('report_tabs', 'report tab', reportChildVisibility),
  'retest result': reader('retest_results', 'retest result', reportChildVisibility),
};
export type ParentKind = keyof typeof parentReaders;

/**
 * The visible parent a body refers to, and who owns it. A parent that does not exist and one
 * the caller may not see answer the same 422 `invalid_reference` naming the field, so ids
 * cannot be probed through a body either.
 */
export async function resolveParentRow(
  trx: Knex,
  principal: RestPrincipal,
  kind: ParentKind,
  id: unknown,
  field: string,
  opts: { forUpdate?: boolean } = {},
): Promise<{ row: Row; access: RowAccess }> {
  if (typeof id !== 'string')
    throw new ValidationError(`The body field /${field} is required.`, [{ path: `/${field}`, message: 'is required' }]);
  const readerOf = parentReaders[kind];
  const row = await readerOf.find(trx, principal, id, opts);
  if (!row) throw invalidReference(field, `The ${kind} ${id} does not exist or is not visible to you.`);
  return { row, access: readerOf.access(row) };
}
