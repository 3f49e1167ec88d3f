import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { defineResource } from '../define-resource.ts';
import { baseFields, Uuid } from '../field.ts';
import { resolveParentRow } from '../parents.ts';
import { reportChildVisibility } from '../visibility.ts';
import { evidenceCleanup } from '../evidence-images/evidence-files.ts';

export function registerReportTabs(app: AppContext) {
  return defineResource(app, {
    name: 'report-tabs',
    schemaName: 'ReportTab',
    label: 'report tab',
    tag: 'Report tabs',
    description: 'Titled, ordered sections of a report with Markdown content (executive summary, scope, methodology, appendix). Deleted permanently.',
    table: 'report_tabs',
    visibility: reportChildVisibility,
    concurrency: true,
    fields: {
      ...baseFields,
      reportId: { column: 'report_id', schema: Uuid, create: 'required' },
      title: { column: 'title', schema: Type.String({ minLength: 1, maxLength: 300 }), create: 'required', update: true },
      position: { column: 'position', schema: Type.Integer({ minimum: 0, maximum: 100_000 }), create: 'optional', update: true },
      content: { column: 'content', schema: Type.String({ maxLength: 2_000_000, description: 'Markdown.' }), create: 'optional', update: true },
    },
    order: [['r.position', 'asc'], ['r.created_at', 'asc']],
    filters: { report_id: { schema: Uuid, description: 'Only tabs of this report.', apply: (q, v: string) => void q.where('r.report_id', v) } },
    create: {
      example: { reportId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f', title: 'Executive summary', content: '## Summary\n\nWe tested...' },
      async resolveParent({ trx, principal, input }) {
        const { access } = await resolveParentRow(trx, principal, 'report', input.reportId, 'reportId');
        return { access };
      },
    },
    beforeDelete: (trx, row) => evidenceCleanup(app, trx, { reportTabId: row.id }),
  });
}
