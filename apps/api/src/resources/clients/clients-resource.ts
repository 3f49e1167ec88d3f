import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { defineResource } from '../define-resource.ts';
import { baseFields } from '../field.ts';
import { clientVisibility } from '../visibility.ts';

const Contact = Type.Object(
  { name: Type.String({ maxLength: 200 }), email: Type.Optional(Type.String({ maxLength: 320 })), phone: Type.Optional(Type.String({ maxLength: 50 })), role: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);

export function registerClients(app: AppContext) {
  return defineResource(app, {
    name: 'clients',
    schemaName: 'Client',
    label: 'client',
    tag: 'Clients',
    description: 'Organisations you test for. Deleting a client moves it, with its projects and reports, to the trash.',
    table: 'clients',
    visibility: clientVisibility,
    trash: true,
    fields: {
      ...baseFields,
      name: { column: 'name', schema: Type.String({ minLength: 1, maxLength: 300 }), create: 'required', update: true },
      shortName: { column: 'short_name', schema: Type.Union([Type.String({ maxLength: 50 }), Type.Null()]), create: 'optional', update: true },
      description: { column: 'description', schema: Type.String({ maxLength: 100_000 }), create: 'optional', update: true },
      website: { column: 'website', schema: Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]), create: 'optional', update: true },
      contacts: { column: 'contacts', schema: Type.Array(Contact, { maxItems: 100 }), create: 'optional', update: true, json: true },
    },
    order: [['r.name', 'asc'], ['r.created_at', 'asc']],
    create: { example: { name: 'Acme Corp', shortName: 'ACME', contacts: [{ name: 'Jane Doe', email: 'jane@acme.example' }] } },
  });
}
