import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { defineResource } from '../define-resource.ts';
import { baseFields, Uuid } from '../field.ts';
import { resolveParentRow } from '../parents.ts';
import { reportChildVisibility } from '../visibility.ts';

export function registerReportLinks(app: AppContext) {
  return defineResource(app, {
    name: 'report-links',
    schemaName: 'ReportLink',
    label: 'report link',
    tag: 'Report links',
    description: 'Titled hyperlinks attached to a report (ticket, scope document, earlier report), listed in exports. Deleted permanently.',
    table: 'report_links',
    visibility: reportChildVisibility,
    fields: {
      ...baseFields,
      reportId: { column: 'report_id', schema: Uuid, create: 'required' },
      title: { column: 'title', schema: Type.String({ minLength: 1, maxLength: 300 }), create: 'required', update: true },
      url: { column: 'url', schema: Type.String({ pattern: '^(https?|mailto):', maxLength: 4000, description: 'An http, https or mailto URL.' }), create: 'required', update: true },
      position: { column: 'position', schema: Type.Integer({ minimum: 0, maximum: 100_000 }), create: 'optional', update: true },
    },
    order: [['r.position', 'asc'], ['r.created_at', 'asc']],
    filters: { report_id: { schema: Uuid, description: 'Only links of this report.', apply: (q, v: string) => void q.where('r.report_id', v) } },
    create: {
      example: { reportId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f', title: 'Scope document', url: 'https://tickets.example/SCOPE-12' },
      async resolveParent({ trx, principal, input }) {
        return { access: (await resolveParentRow(trx, principal, 'report', input.reportId, 'reportId')).access };
      },
    },
  });
}
