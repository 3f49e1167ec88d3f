import { Type } from 'typebox';
import { ValidationError } from '@service/http';
import type { AppContext } from '../../app-context.ts';
import { defineResource } from '../define-resource.ts';
import { evidenceCleanup } from '../evidence-images/evidence-files.ts';
import { baseFields, Severity, Uuid } from '../field.ts';
import { AffectedAssetSchema, findingContentFields } from '../finding-content.ts';
import { nextFindingPosition, resolveParentRow } from '../parents.ts';
import { findingVisibility } from '../visibility.ts';

export const FindingStatus = Type.Enum(['open', 'resolved', 'accepted-risk', 'false-positive']);
export const FindingSource = Type.Object(
  {
    kind: Type.Enum(['manual', 'template', 'scanner']),
    templateKey: Type.Optional(Type.String({ maxLength: 300 })),
    templateId: Type.Optional(Uuid),
    scanner: Type.Optional(Type.String({ maxLength: 50 })),
    scannerVersion: Type.Optional(Type.String({ maxLength: 100 })),
    ruleId: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

/** Appends a finding to a report's list of findings. */
export async function attachFinding(trx: import('knex').Knex, reportId: string, findingId: string, userId: string): Promise<void> {
  const position = await nextFindingPosition(trx, reportId);
  await trx('report_findings').insert({ report_id: reportId, finding_id: findingId, position, created_by: userId }).onConflict(['report_id', 'finding_id']).ignore();
}

export function registerFindings(app: AppContext) {
  return defineResource(app, {
    name: 'findings',
    schemaName: 'Finding',
    label: 'finding',
    tag: 'Findings',
    description: 'Findings belong to a project and can appear in several of its reports. Create with `reportId` to create in that report\'s project and attach in one call. Deleted permanently, with their attachments to reports.',
    table: 'findings',
    visibility: findingVisibility,
    concurrency: true,
    idempotentCreate: true,
    fields: {
      ...baseFields,
      projectId: { column: 'project_id', schema: Uuid, create: 'optional' },
      ...findingContentFields,
      status: { column: 'status', schema: FindingStatus, create: 'optional', update: true },
      affectedAssets: { column: 'affected_assets', schema: Type.Array(AffectedAssetSchema, { maxItems: 10_000 }), create: 'optional', update: true, json: true },
      source: { column: 'source', schema: FindingSource, create: 'optional', json: true },
    },
    extraResponse: { reportIds: Type.Array(Uuid, { description: 'Reports this finding is attached to.' }) },
    extraSelect: (db) => [
      db.raw(
        "(select coalesce(array_agg(rf.report_id order by rf.position, rf.report_id), '{}') from report_findings rf join reports rr on rr.id = rf.report_id and rr.deleted_at is null where rf.finding_id = r.id) as report_ids",
      ),
    ],
    present: (row) => ({ reportIds: (row.report_ids as string[] | undefined) ?? [] }),
    filters: {
      project_id: { schema: Uuid, description: 'Only findings of this project.', apply: (q, v: string) => void q.where('r.project_id', v) },
      client_id: { schema: Uuid, description: 'Only findings of this client.', apply: (q, v: string) => void q.where('p.client_id', v) },
      report_id: {
        schema: Uuid,
        description: 'Only findings attached to this report.',
        apply: (q, v: string, db) => void q.whereExists(db('report_findings as rf').select(db.raw('1')).whereRaw('rf.finding_id = r.id').andWhere('rf.report_id', v)),
      },
      severity: { schema: Severity, description: 'Only findings of this severity.', apply: (q, v: string) => void q.where('r.severity', v) },
      status: { schema: FindingStatus, description: 'Only findings with this status.', apply: (q, v: string) => void q.where('r.status', v) },
    },
    create: {
      extra: { reportId: Type.Optional({ ...Uuid, description: "Create in this report's project and attach to the report." }) },
      example: { reportId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f', title: 'SQL injection in login form', severity: 'high', cwes: [89], description: 'The `username` parameter...', affectedAssets: [{ host: 'https://app.example', url: 'https://app.example/login', parameter: 'username' }] },
      async resolveParent({ trx, principal, input }) {
        if (input.reportId) {
          const report = await resolveParentRow(trx, principal, 'report', input.reportId, 'reportId');
          if (input.projectId && input.projectId !== report.row.project_id) {
            throw new ValidationError('The report belongs to another project than projectId.', [{ path: '/projectId', message: "must be the report's project (or be omitted)" }]);
          }
          return { access: report.access, columns: { project_id: report.row.project_id } };
        }
        if (!input.projectId) throw new ValidationError('Give projectId or reportId.', [{ path: '/projectId', message: 'is required when reportId is not given' }]);
        return { access: (await resolveParentRow(trx, principal, 'project', input.projectId, 'projectId')).access };
      },
      async afterInsert({ trx, row, input, principal }) {
        if (input.reportId) await attachFinding(trx, input.reportId as string, row.id as string, principal.userId);
      },
    },
    beforeDelete: (trx, row) => evidenceCleanup(app, trx, { findingId: row.id }),
  });
}
