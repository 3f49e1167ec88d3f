import { Type } from 'typebox';
import { NotFoundError } from '@service/http';
import type { AppContext } from '../../app-context.ts';
import { defineResource } from '../define-resource.ts';
import { baseFields, Uuid } from '../field.ts';
import { resolveParentRow } from '../parents.ts';
import { reportVisibility } from '../visibility.ts';

export function registerReports(app: AppContext) {
  return defineResource(app, {
    name: 'reports',
    schemaName: 'Report',
    label: 'report',
    tag: 'Reports',
    description: 'Reports of a project: tabs, attached findings and links. Import and export target reports. Deleting moves a report to the trash.',
    table: 'reports',
    visibility: reportVisibility,
    trash: true,
    concurrency: true,
    fields: {
      ...baseFields,
      projectId: { column: 'project_id', schema: Uuid, create: 'required' },
      clientId: { column: '_client_id', schema: Uuid },
      title: { column: 'title', schema: Type.String({ minLength: 1, maxLength: 500 }), create: 'required', update: true },
      status: { column: 'status', schema: Type.Enum(['draft', 'review', 'final']), create: 'optional', update: true },
      language: { column: 'language', schema: Type.String({ pattern: '^[a-z]{2}(-[A-Z]{2})?$', maxLength: 5 }), create: 'optional', update: true },
      summary: { column: 'summary', schema: Type.String({ maxLength: 1_000_000 }), create: 'optional', update: true },
      templateId: { column: 'template_id', schema: Type.Union([Uuid, Type.Null()], { description: 'Report template; its tabs are copied into the new report.' }), create: 'optional' },
      styleId: { column: 'style_id', schema: Type.Union([Uuid, Type.Null()], { description: 'Style from the style library used by the DOCX export.' }), create: 'optional', update: true },
    },
    filters: {
      project_id: { schema: Uuid, description: 'Only reports of this project.', apply: (q, v: string) => void q.where('r.project_id', v) },
      client_id: { schema: Uuid, description: 'Only reports of this client.', apply: (q, v: string) => void q.where('p.client_id', v) },
      status: { schema: Type.Enum(['draft', 'review', 'final']), description: 'Only reports with this status.', apply: (q, v: string) => void q.where('r.status', v) },
    },
    create: {
      example: { projectId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f', title: 'External penetration test: final report', templateId: null },
      async resolveParent({ trx, principal, input }) {
        const { access } = await resolveParentRow(trx, principal, 'project', input.projectId, 'projectId');
        if (input.templateId && !(await trx('report_templates').where({ id: input.templateId }).first())) throw new NotFoundError(`The report template ${String(input.templateId)} (templateId) was not found.`);
        if (input.styleId && !(await trx('report_styles').where({ id: input.styleId }).first())) throw new NotFoundError(`The report style ${String(input.styleId)} (styleId) was not found.`);
        return { access };
      },
      async afterInsert({ trx, row, principal }) {
        if (!row.template_id) return;
        const template = await trx('report_templates').where({ id: row.template_id }).first();
        const tabs = (template?.tabs ?? []) as Array<{ title: string; content?: string }>;
        if (tabs.length > 0) {
          await trx('report_tabs').insert(tabs.map((t, i) => ({ report_id: row.id, title: t.title, content: t.content ?? '', position: i, created_by: principal.userId })));
        }
      },
    },
  });
}
