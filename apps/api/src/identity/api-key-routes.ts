import { Type } from 'typebox';
import { DEFAULT_KEY_LIFETIME_MS, MAX_KEY_LIFETIME_MS } from '@service/auth';
import { BadRequestError, defineRoute, NotFoundError } from '@service/http';
import type { AppContext } from '../app-context.ts';
import { ApiKeySchema, IdParams, presentApiKey, ScopeSchema, Uuid } from './identity-schemas.ts';
import { requireSession, sameOriginGuard } from './session-guard.ts';

const ClientIds = Type.Union([Type.Array(Uuid, { maxItems: 500, uniqueItems: true }), Type.Null()], {
  description: 'Client allow-list: edits, deletes, evidence uploads and imports into existing reports need the client on it. Omit or null for every client; [] for none.',
});

const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scope: ScopeSchema,
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'Default: one year from now. At most two years.' })),
    clientIds: Type.Optional(ClientIds),
  },
  { additionalProperties: false },
);

const UpdateKeyBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), clientIds: Type.Optional(ClientIds) },
  { additionalProperties: false },
);

const CreatedKey = Type.Object({ key: Type.String({ description: 'The key value. Shown this once; store it now.' }), apiKey: ApiKeySchema });

export function registerApiKeyRoutes(app: AppContext): void {
  const { router, registry, routeDefaults, identity } = app;
  const signedIn = [sameOriginGuard(), requireSession(app.sessionOf)];
  const admin = [sameOriginGuard(), requireSession(app.sessionOf, 'admin')];
  registry.addTag('API keys', 'Personal API keys (`service_sk_...`), managed from a signed-in session.');
  registry.addSchema('ApiKey', ApiKeySchema);

  defineRoute(router, registry, routeDefaults, {
    method: 'get',
    path: '/api/profile/api-keys',
    operationId: 'listOwnApiKeys',
    summary: 'List my API keys',
    tags: ['API keys'],
    security: 'session',
    before: signedIn,
    responses: { 200: { description: 'Your keys, newest first. Key values are never shown.', schema: { arrayOf: 'ApiKey' } } },
    async handler(ctx) {
      const s = (await app.sessionOf(ctx))!;
      ctx.body = (await identity.apiKeys.listForUser(s.organizationId, s.userId)).map(presentApiKey);
    },
  });

  defineRoute(router, registry, routeDefaults, {
    method: 'post',
    path: '/api/profile/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description: 'The answer holds the key value; it is the only time the value is shown.',
    tags: ['API keys'],
    security: 'session',
    before: signedIn,
    body: { schema: CreateKeyBody, maxBytes: 64 * 1024, example: { name: 'CI pipeline', scope: 'read-write', clientIds: null } },
    responses: { 201: { description: 'Created.', schema: CreatedKey } },
    async handler(ctx, { body }) {
      const s = (await app.sessionOf(ctx))!;
      const now = Date.now();
      const expiresAt = body.expiresAt ? new Date(body.expiresAt) : new Date(now + DEFAULT_KEY_LIFETIME_MS);
      if (expiresAt.getTime() <= now) throw new BadRequestError('expiresAt must be in the future.', 'validation_failed');
      if (expiresAt.getTime() > now + MAX_KEY_LIFETIME_MS) throw new BadRequestError('expiresAt may be at most two years from now.', 'validation_failed');
      const { key, value } = await identity.apiKeys.create({
        organizationId: s.organizationId,
        userId: s.userId,
        name: body.name,
        scope: body.scope,
        expiresAt,
        clientIds: body.clientIds ?? null,
      });
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 201;
      ctx.body = { key: value, apiKey: presentApiKey(key) };
    },
  });

  defineRoute(router, registry, routeDefaults, {
    method: 'patch',
    path: '/api/profile/api-keys/{id}',
    operationId: 'updateApiKey',
    summary: 'Rename a key or change its client allow-list',
    tags: ['API keys'],
    security: 'session',
    before: signedIn,
    params: IdParams,
    body: { schema: UpdateKeyBody, maxBytes: 64 * 1024 },
    responses: { 200: { description: 'Updated.', schema: 'ApiKey' } },
    async handler(ctx, { params, body }) {
      const s = (await app.sessionOf(ctx))!;
      const key = await identity.apiKeys.update(s.organizationId, params.id, s.userId, body);
      if (!key) throw new NotFoundError();
      ctx.body = presentApiKey(key);
    },
  });

  defineRoute(router, registry, routeDefaults, {
    method: 'delete',
    path: '/api/profile/api-keys/{id}',
    operationId: 'revokeOwnApiKey',
    summary: 'Revoke one of my keys',
    tags: ['API keys'],
    security: 'session',
    before: signedIn,
    params: IdParams,
    responses: { 204: { description: 'Revoked; the key stops working at once.' } },
    async handler(ctx, { params }) {
      const s = (await app.sessionOf(ctx))!;
      const key = await identity.apiKeys.revoke(s.organizationId, params.id, s.userId, s.userId);
      if (!key) throw new NotFoundError();
      ctx.status = 204;
    },
  });

  defineRoute(router, registry, routeDefaults, {
    method: 'get',
    path: '/api/admin/api-keys',
    operationId: 'listOrganizationApiKeys',
    summary: 'Every API key of the organization (administrators)',
    tags: ['API keys'],
    security: 'session',
    before: admin,
    responses: { 200: { description: 'Every key with its owner. Key values are never shown.', schema: { arrayOf: 'ApiKey' } } },
    async handler(ctx) {
      const s = (await app.sessionOf(ctx))!;
      ctx.body = (await identity.apiKeys.listForOrganization(s.organizationId)).map(presentApiKey);
    },
  });

  defineRoute(router, registry, routeDefaults, {
    method: 'post',
    path: '/api/admin/api-keys/{id}/revoke',
    operationId: 'revokeApiKey',
    summary: 'Revoke any key of the organization (administrators)',
    tags: ['API keys'],
    security: 'session',
    before: admin,
    params: IdParams,
    responses: { 200: { description: 'Revoked.', schema: 'ApiKey' } },
    async handler(ctx, { params }) {
      const s = (await app.sessionOf(ctx))!;
      const key = await identity.apiKeys.revoke(s.organizationId, params.id, s.userId);
      if (!key) throw new NotFoundError();
      ctx.body = presentApiKey(key);
    },
  });
}
