import { Type } from 'typebox';
import { ConflictError, ValidationError } from '@service/http';
import type { AppContext } from '../../app-context.ts';
import { defineResource } from '../define-resource.ts';
import { baseFields, Uuid } from '../field.ts';
import { nextFindingPosition, resolveParentRow } from '../parents.ts';
import { reportChildVisibility } from '../visibility.ts';


export function registerReportFindings(app: AppContext) {
  return defineResource(app, {
    name: 'report-findings',
    schemaName: 'ReportFinding',
    label: 'report finding',
    tag: 'Report findings',
    description: 'A finding attached to a report at a position. The finding must belong to the report\'s project. Deleting detaches it; the finding stays.',
    table: 'report_findings',
    visibility: reportChildVisibility,
    idempotentCreate: true,
    searchable: false,
    fields: {
      ...baseFields,
      reportId: { column: 'report_id', schema: Uuid, create: 'required' },
      findingId: { column: 'finding_id', schema: Uuid, create: 'required' },
      position: { column: 'position', schema: Type.Integer({ minimum: 0, maximum: 100_000 }), create: 'optional', update: true },
    },
    order: [['r.position', 'asc'], ['r.created_at', 'asc']],
    filters: {
      report_id: { schema: Uuid, description: 'Only attachments to this report.', apply: (q, v: string) => void q.where('r.report_id', v) },
      finding_id: { schema: Uuid, description: 'Only attachments of this finding.', apply: (q, v: string) => void q.where('r.finding_id', v) },
    },
    create: {
      example: { reportId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f', findingId: '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b' },
      async resolveParent({ trx, principal, input }) {
        const report = await resolveParentRow(trx, principal, 'report', input.reportId, 'reportId');
        const { row: finding } = await resolveParentRow(trx, principal, 'finding', input.findingId, 'findingId');
        if (finding.project_id !== report.row.project_id) {
          throw new ValidationError("The finding belongs to another project than the report.", [{ path: '/findingId', message: "must belong to the report's project" }]);
        }
        if (await trx('report_findings').where({ report_id: input.reportId, finding_id: input.findingId }).first()) {
          throw new ConflictError('The finding is already attached to this report.', 'already_attached');
        }
        const columns: Record<string, unknown> = {};
        if (input.position === undefined) {
          columns.position = await nextFindingPosition(trx, input.reportId as string);
        }
        return { access: report.access, columns };
      },
    },
  });
}

