import { ClientProperties } from '@service/report-model';
import { baseFields } from '../field.ts';
import { declareResource } from '../resource-declaration.ts';
import { clientVisibility } from '../visibility.ts';

export const clientsDeclaration = declareResource()({
  name: 'clients',
  schemaName: 'Client',
  label: 'client',
  tag: 'Clients',
  description: 'Organisations you test for. Deleting a client moves it, with its projects and reports, to the trash.',
  table: 'clients',
  visibility: clientVisibility,
  trash: true,
  // Why: `createClient` is the client factory of @hey-api/openapi-ts and of openapi-fetch.
  operationIds: { create: 'createWorkspaceClient' },
  fields: {
    ...baseFields,
    name: { column: 'name', schema: ClientProperties.name, create: 'required', update: true },
    shortName: { column: 'short_name', schema: ClientProperties.shortName, create: 'optional', update: true },
    description: { column: 'description', schema: ClientProperties.description, create: 'optional', update: true },
    website: { column: 'website', schema: ClientProperties.website, create: 'optional', update: true },
    contacts: { column: 'contacts', schema: ClientProperties.contacts, create: 'optional', update: true, json: true },
  },
  order: [
    ['r.name', 'asc'],
    ['r.created_at', 'asc'],
  ],
  create: {
    example: { name: 'Acme Corp', shortName: 'ACME', contacts: [{ name: 'Jane Doe', email: 'jane@acme.example' }] },
  },
});
