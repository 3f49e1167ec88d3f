import { PROJECT_FIELDS, PROJECT, Uuid } from '@service/report-model';
import { apiFieldsOf } from '../declared-api-fields.ts';
import { baseFields } from '../field.ts';
import { resolveParentRow } from '../parents.ts';
import { declareResource } from '../resource-declaration.ts';
import { projectVisibility } from '../visibility.ts';

export const projectsDeclaration = declareResource()({
  name: 'projects',
  schemaName: 'Project',
  label: 'project',
  tag: 'Projects',
  description:
    'Engagements for a client. A project holds reports and findings, and can be shared with external collaborators.',
  table: 'projects',
  visibility: projectVisibility,
  trash: true,
  fields: {
    ...baseFields,
    clientId: { column: 'client_id', schema: Uuid, create: 'required' },
    ...apiFieldsOf(PROJECT),
  },
  filters: {
    client_id: {
      schema: Uuid,
      description: 'Only projects of this client.',
      apply: (q, v: string) => void q.where('r.client_id', v),
    },
    status: {
      schema: PROJECT_FIELDS.status.schema,
      description: 'Only projects with this status.',
      apply: (q, v: string) => void q.where('r.status', v),
    },
  },
  create: {
    example: {
      clientId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f',
      name: 'External penetration test 2026',
      status: 'active',
      startDate: '2026-11-02',
    },
    async resolveParent({ trx, principal, input }) {
      return { access: (await resolveParentRow(trx, principal, 'client', input.clientId, 'clientId')).access };
    },
  },
});
