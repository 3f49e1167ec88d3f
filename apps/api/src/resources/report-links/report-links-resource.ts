import { LINK, Uuid } from '@service/report-model';
import { apiFieldsOf } from '../declared-api-fields.ts';
import { baseFields } from '../field.ts';
import { resolveParentRow } from '../parents.ts';
import { declareResource } from '../resource-declaration.ts';
import { Position } from '../report-tabs/report-tabs-resource.ts';
import { reportChildVisibility } from '../visibility.ts';

export const reportLinksDeclaration = declareResource()({
  name: 'report-links',
  schemaName: 'ReportLink',
  label: 'report link',
  tag: 'Report links',
  description:
    'Titled hyperlinks attached to a report (ticket, scope document, earlier report), ' +
    'listed in exports. Adding a link edits the report, so its client must be on the ' +
    "key's allow-list. Deleted permanently.",
  table: 'report_links',
  visibility: reportChildVisibility,
  fields: {
    ...baseFields,
    reportId: { column: 'report_id', schema: Uuid, create: 'required' },
    ...apiFieldsOf(LINK),
    position: { column: 'position', schema: Position, create: 'optional', update: true },
  },
  order: [
    ['r.position', 'asc'],
    ['r.created_at', 'asc'],
  ],
  filters: {
    report_id: {
      schema: Uuid,
      description: 'Only links of this report.',
      apply: (q, v: string) => void q.where('r.report_id', v),
    },
  },
  create: {
    example: {
      reportId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f',
      title: 'Scope document',
      url: 'https://tickets.example/SCOPE-12',
    },
    async resolveParent({ trx, principal, input }) {
      return {
        access: (await resolveParentRow(trx, principal, 'report', input.reportId, 'reportId')).access,
        action: 'update',
      };
    },
  },
});
