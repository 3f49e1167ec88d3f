import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { defineResource } from '../define-resource.ts';
import { baseFields, dateField, Uuid } from '../field.ts';
import { resolveParentRow } from '../parents.ts';
import { projectVisibility } from '../visibility.ts';

export function registerProjects(app: AppContext) {
  return defineResource(app, {
    name: 'projects',
    schemaName: 'Project',
    label: 'project',
    tag: 'Projects',
    description: 'Engagements for a client. A project holds reports and findings, and can be shared with external collaborators.',
    table: 'projects',
    visibility: projectVisibility,
    trash: true,
    fields: {
      ...baseFields,
      clientId: { column: 'client_id', schema: Uuid, create: 'required' },
      name: { column: 'name', schema: Type.String({ minLength: 1, maxLength: 300 }), create: 'required', update: true },
      projectType: { column: 'project_type', schema: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]), create: 'optional', update: true },
      description: { column: 'description', schema: Type.String({ maxLength: 100_000 }), create: 'optional', update: true },
      status: { column: 'status', schema: Type.Enum(['planned', 'active', 'completed', 'archived']), create: 'optional', update: true },
      startDate: dateField('start_date', 'First day of testing.'),
      endDate: dateField('end_date', 'Last day of testing.'),
    },
    filters: {
      client_id: { schema: Uuid, description: 'Only projects of this client.', apply: (q, v: string) => void q.where('r.client_id', v) },
      status: { schema: Type.String(), description: 'Only projects with this status.', apply: (q, v: string) => void q.where('r.status', v) },
    },
    create: {
      example: { clientId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f', name: 'External penetration test 2026', status: 'active', startDate: '2026-11-02' },
      async resolveParent({ trx, principal, input }) {
        const { access } = await resolveParentRow(trx, principal, 'client', input.clientId, 'clientId');
        return { access };
      },
    },
  });
}
