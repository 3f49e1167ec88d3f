import type { Knex } from 'knex';
import { Type } from 'typebox';
import { ValidationError } from '@service/http';
import {
  describeBand,
  FindingStatusSchema,
  RetestStatusSchema,
  severityDisagreement,
  SeveritySchema,
  Uuid,
  type Cvss,
  type RetestStatus,
  type Severity,
} from '@service/report-model';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { baseFields } from '../field.ts';
import { resolveParentRow } from '../parents.ts';
import { declareResource, type Row } from '../resource-declaration.ts';
import { findingVisibility, shareLevelSql } from '../visibility.ts';
import { findingFields } from './finding-fields.ts';

/** The reports a finding is attached to that the caller can see (externals: only shared ones). */
function reportIdsSql(principal: RestPrincipal): string {
  const visible =
    principal.role === 'external'
      ? ` and ${shareLevelSql({ project: 'rr.project_id', report: 'rr.id' })} is not null`
      : '';
  return (
    `(select coalesce(array_agg(rf.report_id order by rf.position, rf.report_id), ` +
    `'{}') from report_findings rf join reports rr on rr.id = rf.report_id and ` +
    `rr.deleted_at is null where rf.finding_id = r.id${visible}) as report_ids`
  );
}

/** Fields whose change can move a finding in the reports kept in severity order. */
const ORDERING_FIELDS = ['severity', 'cvss', 'title'];

/**
 * A severity other than the band of the finding's CVSS score needs a reason (set by a person, or
 * by an import from the scanner's own rating). Checked when a request sets one of them.
 */
export function checkSeverityCoherence(next: Record<string, unknown>, changed: Record<string, unknown>): void {
  if (!['severity', 'cvss', 'severityReason'].some((k) => k in changed)) return;
  const finding = {
    severity: next.severity as Severity,
    cvss: (next.cvss as Cvss[] | undefined) ?? [],
  };
  const band = severityDisagreement(finding);
  if (band && String(next.severityReason ?? '').trim() === '')
    throw new ValidationError(
      `The severity ${finding.severity} differs from the CVSS band (${describeBand(band)}); ` +
        'say why in severityReason, or change the severity or the CVSS.',
      [{ path: '/severityReason', message: `is required when the severity differs from the CVSS band (${band.band})` }],
    );
}

/**
 * Whether the caller sees every finding of a report (they all belong to the report's project): all
 * or none for members of the workspace, by the project's and client's trash state; for an external
 * collaborator all when the project, or the report (not in the trash), is shared with them.
 */
async function reportFindingsVisible(
  db: Knex,
  principal: RestPrincipal,
  reportId: string,
): Promise<'all' | 'none' | 'some'> {
  // A share of a report in the trash shows nothing through it (as for a finding's own visibility).
  const level = shareLevelSql({
    project: 'rep.project_id',
    report: 'case when rep.deleted_at is null then rep.id end',
  });
  const external = principal.role === 'external';
  const report = await db('reports as rep')
    .join('projects as p', 'p.id', 'rep.project_id')
    .join('clients as c', 'c.id', 'p.client_id')
    .where('rep.id', reportId)
    .whereNull('p.deleted_at')
    .whereNull('c.deleted_at')
    .first(external ? db.raw(`${level} as level`, { uid: principal.userId }) : 'rep.id');
  if (!report) return 'none';
  return !external || report.level !== null ? 'all' : 'some';
}

export function findingsDeclaration(hooks: {
  attach(trx: Knex, reportId: string, findingId: string, userId: string): Promise<void>;
  /** Puts the reports a finding is in back in severity order, where they are kept so. */
  reorder(trx: Knex, findingId: string): Promise<void>;
  /** Locks the reports the finding is attached to (before the finding: see report-order.ts). */
  lockReports(trx: Knex, findingId: string): Promise<void>;
  beforeDelete(trx: Knex.Transaction, row: Row, principal: RestPrincipal): Promise<(() => Promise<void>) | void>;
}) {
  return declareResource<{ report_ids: string[] }>()({
    name: 'findings',
    schemaName: 'Finding',
    label: 'finding',
    tag: 'Findings',
    description:
      'Findings belong to a project and can appear in several of its reports. Create ' +
      "with `reportId` to create in that report's project and attach in one call (that " +
      "edits the report, so its client must be on the key's allow-list). Deleted " +
      'permanently, with their attachments to reports.',
    table: 'findings',
    visibility: findingVisibility,
    concurrency: true,
    fields: {
      ...baseFields,
      projectId: {
        column: 'project_id',
        schema: { ...Uuid, description: 'The project; give this or `reportId` (or both, naming the same project).' },
        create: 'optional',
      },
      ...findingFields,
    },
    extraResponse: {
      reportIds: Type.Array(Uuid, { description: 'Reports this finding is attached to that you can see.' }),
    },
    extraSelect: (db, principal) => [db.raw(reportIdsSql(principal), { uid: principal.userId })],
    present: (row) => ({ reportIds: row.report_ids }),
    filters: {
      project_id: {
        schema: Uuid,
        description: 'Only findings of this project.',
        apply: (q, v: string) => void q.where('r.project_id', v),
      },
      client_id: {
        schema: Uuid,
        description: 'Only findings of this client.',
        apply: (q, v: string) => void q.where('p.client_id', v),
      },
      report_id: {
        schema: Uuid,
        description: "Only findings attached to this report, in the report's order.",
        apply: (q, v: string) =>
          void q.join('report_findings as member', (j) =>
            j.on('member.finding_id', 'r.id').andOnVal('member.report_id', v),
          ),
        order: [['member.position', 'asc']],
        ordered: {
          table: 'report_findings',
          parentColumn: 'report_id',
          rowColumn: 'finding_id',
          positionColumn: 'position',
          count: { table: 'report_finding_counts', parentColumn: 'report_id', column: 'findings' },
          visible: reportFindingsVisible,
        },
      },
      severity: {
        schema: SeveritySchema,
        description: 'Only findings of this severity.',
        apply: (q, v: string) => void q.where('r.severity', v),
      },
      status: {
        schema: FindingStatusSchema,
        description: 'Only findings with this status.',
        apply: (q, v: string) => void q.where('r.status', v),
      },
      retest_status: {
        schema: RetestStatusSchema,
        description:
          'Only findings whose retest result has this status: in the retest given by `report_id`, or without ' +
          'it in any retest.',
        apply: (q, v: RetestStatus, db, filters) => {
          const results = db('retest_results as rr').select(db.raw('1')).whereRaw('rr.finding_id = r.id');
          if (typeof filters.report_id === 'string') results.andWhere('rr.report_id', filters.report_id);
          void q.whereExists(results.andWhere('rr.status', v));
        },
      },
    },
    create: {
      extra: {
        reportId: Type.Optional({ ...Uuid, description: "Create in this report's project and attach to the report." }),
      },
      bodyRules: { anyOf: [{ required: ['projectId'] }, { required: ['reportId'] }] },
      example: {
        reportId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f',
        title: 'SQL injection in login form',
        severity: 'high',
        cwes: [89],
        description: 'The `username` parameter...',
        affectedAssets: [{ host: 'app.example', url: 'https://app.example/login', parameter: 'username' }],
      },
      async resolveParent({ trx, principal, input }) {
        if (input.reportId) {
          const report = await resolveParentRow(trx, principal, 'report', input.reportId, 'reportId');
          if (input.projectId && input.projectId !== report.row.project_id) {
            throw new ValidationError('The report belongs to another project than projectId.', [
              { path: '/projectId', message: "must be the report's project (or be omitted)" },
            ]);
          }
          return { access: report.access, action: 'update', columns: { project_id: report.row.project_id } };
        }
        return { access: (await resolveParentRow(trx, principal, 'project', input.projectId, 'projectId')).access };
      },
      async afterInsert({ trx, row, input, principal }) {
        if (typeof input.reportId === 'string') await hooks.attach(trx, input.reportId, row.id, principal.userId);
      },
    },
    // Why: a change of severity, score or title moves the finding in its reports, a delete removes it.
    async lockFirst(trx, id, changes) {
      if (changes === null || ORDERING_FIELDS.some((k) => k in changes)) await hooks.lockReports(trx, id);
    },
    beforeDelete: hooks.beforeDelete,
    checkRow: checkSeverityCoherence,
    async afterUpdate({ trx, row, changed }) {
      if (ORDERING_FIELDS.some((k) => k in changed)) await hooks.reorder(trx, row.id);
    },
  });
}
