import type { Context } from 'koa';
import { Type } from 'typebox';
import { DEFAULT_KEY_LIFETIME_MS, MAX_ALLOWED_CLIENTS, MAX_KEY_LIFETIME_MS } from '@service/auth';
import { NotFoundError, UnprocessableError, ValidationError } from '@service/http';
import type { AppContext } from '../app-context.ts';
import { ApiKeySchema, IdParams, presentApiKey, ScopeSchema, Uuid } from './identity-schemas.ts';
import { defineAppRoute } from '../rest/define-app-route.ts';

const ALLOW_LIST_RULE =
  'The client allow-list: edits, deletes, evidence uploads and imports into ' +
  'existing reports under a client need it on the list (403 `client_not_allowed` ' +
  'otherwise); reads, exports and plain creates do not. Empty (the default): the ' +
  'key edits nothing until clients are added. There is no "every client". Each id must ' +
  'be a client of your organization (in the trash too); an unknown one answers 422 ' +
  '`invalid_reference` naming its position.';
const ClientIds = Type.Array(Uuid, { maxItems: MAX_ALLOWED_CLIENTS, uniqueItems: true, description: ALLOW_LIST_RULE });
const AddsCreatedClients = Type.Boolean({
  default: false,
  description:
    'Clients created with this key join its allow-list at once, so the key can go on to edit them: the ' +
    'way for a CI job that creates its client, project and report and then imports a scan into it. ' +
    `Default false. A full list (${MAX_ALLOWED_CLIENTS} clients) refuses the create with 409 \`conflict\`.`,
});

const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scope: ScopeSchema,
    expiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'Default: one year from now. At most two years.' }),
    ),
    clientIds: Type.Optional(ClientIds),
    addsCreatedClients: Type.Optional(AddsCreatedClients),
  },
  { additionalProperties: false },
);

const UpdateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    clientIds: Type.Optional(
      Type.Array(Uuid, {
        maxItems: MAX_ALLOWED_CLIENTS,
        uniqueItems: true,
        description: `${ALLOW_LIST_RULE} Replaces the whole list.`,
      }),
    ),
    addsCreatedClients: Type.Optional(AddsCreatedClients),
  },
  { additionalProperties: false },
);

const CreatedKey = Type.Object({
  key: Type.String({ description: 'The key value. Shown this once; store it now.' }),
  apiKey: ApiKeySchema,
});

const EXAMPLE_KEY = {
  id: '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b',
  name: 'CI pipeline',
  scope: 'read-write',
  prefix: 'service_sk_4fQ2aB',
  clientIds: ['3f2b8c1e-5d4a-4b6f-9e7d-2a1c0b9f8e7d'],
  addsCreatedClients: false,
  state: 'active',
  expiresAt: '2027-11-02T09:30:00.000Z',
  createdAt: '2026-11-02T09:30:00.000Z',
  lastUsedAt: null,
  revokedAt: null,
  userId: '7a1d3c5e-9b2f-4d6a-8c0e-1f3b5d7a9c2e',
};

const INVALID_CLIENT_IDS = {
  description:
    'A client id of `clientIds` is not a client of your organization (`invalid_reference`; ' +
    '`details` names each one by its position, e.g. `/clientIds/0`).',
  schema: 'Error',
};

export function registerApiKeyRoutes(app: AppContext): void {
  const { registry, identity } = app;

  /**
   * 422 `invalid_reference` unless every id is a client in the organization's workspace. Why:
   * an allow-list entry naming nothing looks like a grant and never works; a typo must show
   * when the key is made, not as a 403 months later.
   */
  async function assertClientsExist(ctx: Context, organizationId: string, clientIds: readonly string[] | undefined) {
    if (!clientIds || clientIds.length === 0) return;
    const tenant = await app.tenantOf(ctx, organizationId);
    const found = new Set<string>(await tenant('clients').whereIn('id', clientIds).pluck('id'));
    const unknown = clientIds.flatMap((id, index) => (found.has(id) ? [] : [{ id, index }]));
    if (unknown.length > 0)
      throw new UnprocessableError(
        'invalid_reference',
        `The client ${unknown[0]!.id} is not a client of your organization (clientIds).`,
        unknown.slice(0, 50).map(({ index }) => ({
          path: `/clientIds/${index}`,
          message: 'is not a client of your organization',
        })),
      );
  }
  registry.addTag('API keys', 'Personal API keys (`service_sk_...`), managed from a signed-in session.');
  registry.addSchema('ApiKey', ApiKeySchema);

  defineAppRoute(app, {
    method: 'get',
    path: '/api/profile/api-keys',
    operationId: 'listOwnApiKeys',
    summary: 'List my API keys',
    description:
      'Your keys, newest first, with their scope, client allow-list and state. Key values are never shown again.',
    tags: ['API keys'],
    access: 'session',
    responses: {
      200: {
        description: 'Your keys, newest first. Key values are never shown.',
        schema: { arrayOf: 'ApiKey' },
        example: [EXAMPLE_KEY],
      },
    },
    async handler(ctx, { session: s }) {
      ctx.body = (await identity.apiKeys.listForUser(s.organizationId, s.userId)).map(presentApiKey);
    },
  });

  defineAppRoute(app, {
    method: 'post',
    path: '/api/profile/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'The answer holds the key value; it is the only time the value is shown. Without ' +
      '`clientIds` the key can read, export and create, but edits nothing until clients ' +
      'are added to its allow-list; with `addsCreatedClients` the clients it creates are added.',
    tags: ['API keys'],
    access: 'session',
    body: {
      schema: CreateKeyBody,
      maxBytes: 64 * 1024,
      // Why no clientIds: the example must be one that can be sent as it is; ids of your own clients go there.
      example: { name: 'CI pipeline', scope: 'read-write', addsCreatedClients: true },
    },
    responses: {
      201: {
        description: 'Created.',
        schema: CreatedKey,
        example: {
          key: `service_sk_4fQ2aB${'x'.repeat(37)}`,
          apiKey: { ...EXAMPLE_KEY, clientIds: [], addsCreatedClients: true },
        },
      },
      422: INVALID_CLIENT_IDS,
    },
    async handler(ctx, { body, session: s }) {
      const now = Date.now();
      const expiresAt = body.expiresAt ? new Date(body.expiresAt) : new Date(now + DEFAULT_KEY_LIFETIME_MS);
      if (expiresAt.getTime() <= now)
        throw new ValidationError('expiresAt must be in the future.', [
          { path: '/expiresAt', message: 'must be in the future' },
        ]);
      if (expiresAt.getTime() > now + MAX_KEY_LIFETIME_MS)
        throw new ValidationError('expiresAt may be at most two years from now.', [
          { path: '/expiresAt', message: 'must be at most two years from now' },
        ]);
      await assertClientsExist(ctx, s.organizationId, body.clientIds);
      const { key, value } = await identity.apiKeys.create({
        organizationId: s.organizationId,
        userId: s.userId,
        name: body.name,
        scope: body.scope,
        expiresAt,
        clientIds: body.clientIds ?? [],
        addsCreatedClients: body.addsCreatedClients ?? false,
      });
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Location', `/api/profile/api-keys/${key.id}`);
      ctx.status = 201;
      ctx.body = { key: value, apiKey: presentApiKey(key) };
    },
  });

  defineAppRoute(app, {
    method: 'patch',
    path: '/api/profile/api-keys/{id}',
    operationId: 'updateApiKey',
    summary: 'Rename a key or change its client allow-list',
    description:
      'Changes the fields you send; absent fields keep their value. `clientIds` ' +
      'replaces the whole allow-list. Only your own keys.',
    tags: ['API keys'],
    access: 'session',
    params: IdParams,
    body: {
      schema: UpdateKeyBody,
      maxBytes: 64 * 1024,
      example: { clientIds: ['3f2b8c1e-5d4a-4b6f-9e7d-2a1c0b9f8e7d'] },
    },
    responses: { 200: { description: 'Updated.', schema: 'ApiKey', example: EXAMPLE_KEY }, 422: INVALID_CLIENT_IDS },
    async handler(ctx, { params, body, session: s }) {
      await assertClientsExist(ctx, s.organizationId, body.clientIds);
      const key = await identity.apiKeys.update(s.organizationId, params.id, s.userId, body);
      if (!key) throw new NotFoundError();
      ctx.body = presentApiKey(key);
    },
  });

  defineAppRoute(app, {
    method: 'delete',
    path: '/api/profile/api-keys/{id}',
    operationId: 'revokeOwnApiKey',
    summary: 'Revoke one of my keys',
    description: 'The key stops working at once; it stays listed as `revoked`.',
    tags: ['API keys'],
    access: 'session',
    params: IdParams,
    responses: { 204: { description: 'Revoked; the key stops working at once.' } },
    async handler(ctx, { params, session: s }) {
      const key = await identity.apiKeys.revoke(s.organizationId, params.id, s.userId, s.userId);
      if (!key) throw new NotFoundError();
      ctx.status = 204;
    },
  });

  defineAppRoute(app, {
    method: 'get',
    path: '/api/admin/api-keys',
    operationId: 'listOrganizationApiKeys',
    summary: 'Every API key of the organization (administrators)',
    description:
      'Every key of every user of the organization, newest first, with its owner. Key values are never shown.',
    tags: ['API keys'],
    access: 'admin',
    responses: {
      200: {
        description: 'Every key with its owner. Key values are never shown.',
        schema: { arrayOf: 'ApiKey' },
        example: [{ ...EXAMPLE_KEY, ownerEmail: 'tess@example.com', ownerName: 'Tess Tester' }],
      },
    },
    async handler(ctx, { session: s }) {
      ctx.body = (await identity.apiKeys.listForOrganization(s.organizationId)).map(presentApiKey);
    },
  });

  defineAppRoute(app, {
    method: 'post',
    path: '/api/admin/api-keys/{id}/revoke',
    operationId: 'revokeApiKey',
    summary: 'Revoke any key of the organization (administrators)',
    description: 'The key stops working at once. Revoking a revoked key changes nothing.',
    tags: ['API keys'],
    access: 'admin',
    params: IdParams,
    responses: {
      200: {
        description: 'Revoked.',
        schema: 'ApiKey',
        example: { ...EXAMPLE_KEY, state: 'revoked', revokedAt: '2026-11-03T10:00:00.000Z' },
      },
    },
    async handler(ctx, { params, session: s }) {
      const key = await identity.apiKeys.revoke(s.organizationId, params.id, s.userId);
      if (!key) throw new NotFoundError();
      ctx.body = presentApiKey(key);
    },
  });
}
