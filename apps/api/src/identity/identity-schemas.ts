import { Type } from 'typebox';
import { ROLES, KEY_SCOPES, type ApiKey, type User } from '@service/auth';

export const RoleSchema = Type.Enum([...ROLES], {
  description: '`admin`, `member` (creates and edits), `viewer` (reads), `external` (only what is shared with them).',
});
export const ScopeSchema = Type.Enum([...KEY_SCOPES], {
  description: '`read-only` keys cannot create, change or delete anything.',
});
export const Uuid = Type.String({ format: 'uuid' });
export const IdParams = Type.Object({ id: Uuid });

export const UserSchema = Type.Object({
  id: Uuid,
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  active: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  deactivatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const ApiKeySchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  scope: ScopeSchema,
  prefix: Type.String({
    description: 'The first characters of the key, to recognise it. The key itself is never shown again.',
  }),
  clientIds: Type.Array(Uuid, {
    description:
      'The client allow-list: edits, deletes, evidence uploads and imports under a ' +
      'client need it here (403 `client_not_allowed` otherwise). Empty (the default): ' +
      'the key reads, exports and creates, but edits nothing.',
  }),
  addsCreatedClients: Type.Boolean({
    description: 'Clients created with this key join its allow-list (for CI jobs); false unless asked for.',
  }),
  state: Type.Enum(['active', 'expired', 'revoked']),
  expiresAt: Type.String({ format: 'date-time' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  userId: Uuid,
  ownerEmail: Type.Optional(Type.String()),
  ownerName: Type.Optional(Type.String()),
});

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentUser(u: User) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    active: u.active,
    createdAt: u.createdAt.toISOString(),
    updatedAt: u.updatedAt.toISOString(),
    deactivatedAt: iso(u.deactivatedAt),
  };
}

export function presentApiKey(k: ApiKey & { ownerEmail?: string; ownerName?: string }) {
  return {
    id: k.id,
    name: k.name,
    scope: k.scope,
    prefix: k.prefix,
    clientIds: k.clientIds,
    addsCreatedClients: k.addsCreatedClients,
    state: k.state,
    expiresAt: k.expiresAt.toISOString(),
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: iso(k.lastUsedAt),
    revokedAt: iso(k.revokedAt),
    userId: k.userId,
    ...(k.ownerEmail !== undefined ? { ownerEmail: k.ownerEmail, ownerName: k.ownerName } : {}),
  };
}
