import { ConflictError, ValidationError } from '@service/http';
import { RetestStatusSchema, Uuid, type RetestStatus } from '@service/report-model';
import { Type } from 'typebox';
import { baseFields } from '../field.ts';
import { resolveParentRow } from '../parents.ts';
import { declareResource, type Row } from '../resource-declaration.ts';
import { Position } from '../report-tabs/report-tabs-resource.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { reportChildVisibility } from '../visibility.ts';
import type { Knex } from 'knex';
import { lockReportOrders, movePosition, nextPosition } from './report-order.ts';

export function reportFindingsDeclaration(hooks: {
  /** Puts a report kept in severity order in that order. */
  reorder(trx: Knex, reportId: string): Promise<void>;
  /** After an attachment: a finding added to a retest gets its retest result. */
  attached(trx: Knex, reportId: string, userId: string): Promise<void>;
  /** Before a detachment: the files of the finding's retest evidence in that report (removed after the commit). */
  beforeDelete(trx: Knex.Transaction, row: Row, principal: RestPrincipal): Promise<() => Promise<void>>;
}) {
  return declareResource<{ retest_status: RetestStatus | null }>()({
    name: 'report-findings',
    schemaName: 'ReportFinding',
    label: 'report finding',
    tag: 'Report findings',
    description:
      'A finding attached to a report at a position. The finding must belong to the ' +
      "report's project. Attaching edits the report, so its client must be on the key's " +
      'allow-list. Deleting detaches it; the finding stays.',
    table: 'report_findings',
    visibility: reportChildVisibility,
    searchable: false,
    fields: {
      ...baseFields,
      reportId: { column: 'report_id', schema: Uuid, create: 'required' },
      findingId: { column: 'finding_id', schema: Uuid, create: 'required' },
      position: { column: 'position', schema: Position, create: 'optional', update: true },
    },
    order: [
      ['r.position', 'asc'],
      ['r.created_at', 'asc'],
    ],
    filters: {
      report_id: {
        schema: Uuid,
        description: 'Only attachments to this report.',
        apply: (q, v: string) => void q.where('r.report_id', v),
      },
      finding_id: {
        schema: Uuid,
        description: 'Only attachments of this finding.',
        apply: (q, v: string) => void q.where('r.finding_id', v),
      },
      retest_status: {
        schema: RetestStatusSchema,
        description: 'Only findings of a retest report whose retest result has this status.',
        apply: (q, v: RetestStatus, db) =>
          void q.whereExists(
            db('retest_results as rr')
              .select(db.raw('1'))
              .whereRaw('rr.report_id = r.report_id and rr.finding_id = r.finding_id')
              .andWhere('rr.status', v),
          ),
      },
    },
    extraResponse: {
      retestStatus: Type.Union([RetestStatusSchema, Type.Null()], {
        description: "The finding's retest status in this report when it is a retest; null otherwise.",
      }),
    },
    extraSelect: (db) => [
      db.raw(
        '(select rr.status from retest_results rr where rr.report_id = r.report_id and rr.finding_id = r.finding_id) ' +
          'as retest_status',
      ),
    ],
    present: (row) => ({ retestStatus: row.retest_status }),
    create: {
      example: { reportId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f', findingId: '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b' },
      async resolveParent({ trx, principal, input }) {
        // Why lock the report: two attachments at once would otherwise both take the same next position.
        const report = await resolveParentRow(trx, principal, 'report', input.reportId, 'reportId', {
          forUpdate: true,
        });
        const { row: finding } = await resolveParentRow(trx, principal, 'finding', input.findingId, 'findingId');
        if (finding.project_id !== report.row.project_id) {
          throw new ValidationError('The finding belongs to another project than the report.', [
            { path: '/findingId', message: "must belong to the report's project" },
          ]);
        }
        if (
          await trx('report_findings').where({ report_id: input.reportId, finding_id: input.findingId }).first('id')
        ) {
          throw new ConflictError('The finding is already attached to this report.', 'already_attached');
        }
        // Why at the end first: the finding then moves to a position given by hand like any move.
        return {
          access: report.access,
          action: 'update',
          columns: { position: await nextPosition(trx, report.row.id) },
        };
      },
      // Why: a position given by hand is a manual order; without one the finding takes its place.
      async afterInsert({ trx, row, input, principal }) {
        await hooks.attached(trx, row.report_id, principal.userId);
        if (typeof input.position === 'number') {
          await movePosition(trx, row.report_id, row.id, row.position, input.position);
          await setManualOrder(trx, row.report_id);
        } else await hooks.reorder(trx, row.report_id);
      },
    },
    // Why the report first: moving or detaching a finding changes the positions of the others.
    async lockFirst(trx, id) {
      const attached = await trx('report_findings').where({ id }).first('report_id');
      if (attached) await lockReportOrders(trx, [attached.report_id]);
    },
    beforeDelete: (trx, row, principal) => hooks.beforeDelete(trx, row, principal),
    async beforeUpdate({ trx, row, changed }) {
      if (typeof changed.position !== 'number') return changed;
      return { ...changed, position: await movePosition(trx, row.report_id, row.id, row.position, changed.position) };
    },
    async afterUpdate({ trx, row, changed }) {
      if ('position' in changed) await setManualOrder(trx, row.report_id);
    },
  });
}

/** A report whose findings a person moved keeps the order they set. */
async function setManualOrder(trx: Knex, reportId: string): Promise<void> {
  await trx('reports').where({ id: reportId }).update({ finding_order: 'manual' });
}
