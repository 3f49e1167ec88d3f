import type { Knex } from 'knex';
import { Type } from 'typebox';
import { TAB, Uuid } from '@service/report-model';
import { apiFieldsOf } from '../declared-api-fields.ts';
import { baseFields } from '../field.ts';
import { resolveParentRow } from '../parents.ts';
import { declareResource, type Row } from '../resource-declaration.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { reportChildVisibility } from '../visibility.ts';

/** Order within the report; lower comes first. */
export const Position = Type.Integer({ minimum: 0, maximum: 100_000 });

export function reportTabsDeclaration(
  beforeDelete: (trx: Knex.Transaction, row: Row, principal: RestPrincipal) => Promise<() => Promise<void>>,
) {
  return declareResource()({
    name: 'report-tabs',
    schemaName: 'ReportTab',
    label: 'report tab',
    tag: 'Report tabs',
    description:
      'Titled, ordered sections of a report with Markdown content (executive summary, ' +
      'scope, methodology, appendix). Adding a tab edits the report, so its client must ' +
      "be on the key's allow-list. Deleted permanently.",
    table: 'report_tabs',
    visibility: reportChildVisibility,
    concurrency: true,
    fields: {
      ...baseFields,
      reportId: { column: 'report_id', schema: Uuid, create: 'required' },
      ...apiFieldsOf(TAB),
      position: { column: 'position', schema: Position, create: 'optional', update: true },
    },
    order: [
      ['r.position', 'asc'],
      ['r.created_at', 'asc'],
    ],
    filters: {
      report_id: {
        schema: Uuid,
        description: 'Only tabs of this report.',
        apply: (q, v: string) => void q.where('r.report_id', v),
      },
    },
    create: {
      example: {
        reportId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f',
        title: 'Executive summary',
        content: '## Summary\n\nWe tested...',
      },
      async resolveParent({ trx, principal, input }) {
        return {
          access: (await resolveParentRow(trx, principal, 'report', input.reportId, 'reportId')).access,
          action: 'update',
        };
      },
    },
    beforeDelete,
  });
}
