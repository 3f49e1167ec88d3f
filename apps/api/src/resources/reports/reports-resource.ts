import { Type } from 'typebox';
import { REPORT, ReportKindSchema, ReportStatusSchema, Uuid } from '@service/report-model';
import { apiFieldsOf } from '../declared-api-fields.ts';
import { baseFields } from '../field.ts';
import { resolveParentRow } from '../parents.ts';
import { declareResource } from '../resource-declaration.ts';
import { reportVisibility } from '../visibility.ts';

export interface ReportHooks {
  /** Copies the template's tabs (and its style, when the report names none) into the new report. */
  copyTemplateTabs(
    trx: import('knex').Knex,
    reportId: string,
    templateId: string,
    userId: string,
    options: { takeLanguage: boolean },
  ): Promise<void>;
  /** Puts a report kept in severity order in that order. */
  reorder(trx: import('knex').Knex, reportId: string): Promise<void>;
}

export function reportsDeclaration(hooks: ReportHooks) {
  return declareResource()({
    name: 'reports',
    schemaName: 'Report',
    label: 'report',
    tag: 'Reports',
    description:
      'Reports of a project: tabs, attached findings and links. Import and export ' +
      'target reports. Deleting moves a report to the trash.',
    table: 'reports',
    visibility: reportVisibility,
    trash: true,
    concurrency: true,
    fields: {
      ...baseFields,
      projectId: { column: 'project_id', schema: Uuid, create: 'required' },
      clientId: { column: '_client_id', schema: Uuid },
      ...apiFieldsOf(REPORT),
      templateId: {
        column: 'template_id',
        schema: Type.Union([Uuid, Type.Null()], {
          description:
            "Report template; its tabs are copied into the new report, which takes the template's style and, " +
            'unless `language` is given, its language.',
        }),
        create: 'optional',
        references: { table: 'report_templates', label: 'report template', library: true },
      },
      styleId: {
        column: 'style_id',
        schema: Type.Union([Uuid, Type.Null()], {
          description: 'Style from the style library used by the DOCX export.',
        }),
        create: 'optional',
        update: true,
        references: { table: 'report_styles', label: 'report style', library: true },
      },
      // Retests (made with POST /reports/{id}/retests): read-only here.
      kind: { column: 'kind', schema: ReportKindSchema },
      round: {
        column: 'round',
        schema: Type.Integer({ minimum: 0, description: '0 for a report; 1, 2, ... for the rounds of its retest.' }),
      },
      retestOf: {
        column: 'retest_of',
        schema: Type.Union([Uuid, Type.Null()], {
          description: 'A retest: the round before it (the original report for round 1).',
        }),
      },
      originalReportId: {
        column: 'original_report_id',
        schema: Type.Union([Uuid, Type.Null()], { description: 'A retest: the original report.' }),
      },
    },
    filters: {
      project_id: {
        schema: Uuid,
        description: 'Only reports of this project.',
        apply: (q, v: string) => void q.where('r.project_id', v),
      },
      client_id: {
        schema: Uuid,
        description: 'Only reports of this client.',
        apply: (q, v: string) => void q.where('p.client_id', v),
      },
      status: {
        schema: ReportStatusSchema,
        description: 'Only reports with this status.',
        apply: (q, v: string) => void q.where('r.status', v),
      },
      kind: {
        schema: ReportKindSchema,
        description: 'Only reports of this kind (`report` or `retest`).',
        apply: (q, v: string) => void q.where('r.kind', v),
      },
      original_report_id: {
        schema: Uuid,
        description: 'Only the retest rounds of this original report.',
        apply: (q, v: string) => void q.where('r.original_report_id', v),
      },
    },
    create: {
      example: {
        projectId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f',
        title: 'External penetration test: final report',
        templateId: null,
      },
      async resolveParent({ trx, principal, input }) {
        return { access: (await resolveParentRow(trx, principal, 'project', input.projectId, 'projectId')).access };
      },
      async afterInsert({ trx, row, principal, input }) {
        if (row.template_id)
          await hooks.copyTemplateTabs(trx, row.id, row.template_id, principal.userId, {
            takeLanguage: input.language === undefined,
          });
      },
    },
    async afterUpdate({ trx, row, changed }) {
      if (changed.findingOrder === 'severity') await hooks.reorder(trx, row.id);
    },
  });
}
