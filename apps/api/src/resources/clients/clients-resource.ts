import { ClientProperties } from '@service/report-model';
import { baseFields } from '../field.ts';
import { ALLOW_LIST_FULL } from '../../identity/created-client-allow-list.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { declareResource } from '../resource-declaration.ts';
import { clientVisibility } from '../visibility.ts';

/**
 * Clients, with what happens once one is created in the caller's transaction: the key's allow-list
 * takes it when the key asks for that (see ApiKeyRepository.allowCreatedClient).
 */
export const clientsDeclaration = (
  hooks: { created?(principal: RestPrincipal, clientId: string): Promise<void> } = {},
) =>
  declareResource()({
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
      afterInsert: async ({ principal, row }) => hooks.created?.(principal, row.id),
      responses: { 409: ALLOW_LIST_FULL },
    },
  });
