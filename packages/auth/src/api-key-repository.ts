import type { Knex } from 'knex';
import { generateApiKeySecret, hashApiKey, isWellFormedApiKey } from './api-key-secret.ts';
import type { KeyScope, Role } from './policy.ts';

export interface ApiKey {
  id: string;
  userId: string;
  name: string;
  scope: KeyScope;
  prefix: string;
  /** The client allow-list; empty (the default) allows no edits under any client. */
  clientIds: string[];
  /** Clients created with this key join its allow-list (off by default; for CI jobs). */
  addsCreatedClients: boolean;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** Derived: `active`, `expired` or `revoked`. */
  state: 'active' | 'expired' | 'revoked';
}

/** What an authenticated REST request runs as. The owner's role and active flag are read fresh on every request. */
export interface KeyPrincipal {
  keyId: string;
  userId: string;
  organizationId: string;
  role: Role;
  scope: KeyScope;
  /** The key's client allow-list; empty means no client (see Caller in policy.ts). */
  allowedClientIds: string[];
  /** True when clients this key creates join its allow-list (see ApiKeyRepository.allowCreatedClient). */
  addsCreatedClients?: boolean;
  plan: string;
  tenantDatabase: string;
}

const COLUMNS = [
  'id',
  'user_id',
  'name',
  'scope',
  'prefix',
  'client_ids',
  'adds_created_clients',
  'expires_at',
  'created_at',
  'updated_at',
  'last_used_at',
  'revoked_at',
];

type Row = {
  id: string;
  user_id: string;
  name: string;
  scope: KeyScope;
  prefix: string;
  client_ids: string[];
  adds_created_clients: boolean;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
};

function toApiKey(row: Row, now = new Date()): ApiKey {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    scope: row.scope,
    prefix: row.prefix,
    clientIds: row.client_ids ?? [],
    addsCreatedClients: row.adds_created_clients,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    state: row.revoked_at ? 'revoked' : row.expires_at <= now ? 'expired' : 'active',
  };
}

export const DEFAULT_KEY_LIFETIME_MS = 365 * 24 * 60 * 60 * 1000;
/** Most clients a key's allow-list holds. */
export const MAX_ALLOWED_CLIENTS = 500;
/** Longest lifetime a key may be given: two years. */
export const MAX_KEY_LIFETIME_MS = 2 * DEFAULT_KEY_LIFETIME_MS;
/** `last_used_at` is written at most this often per key. */
const LAST_USED_GRANULARITY_MS = 60_000;

/** Where a failure of work done off the request's path (the `last_used_at` write) is reported. */
export interface BackgroundErrorLogger {
  warn(event: string, fields?: Record<string, unknown>): void;
}

/** Without a logger, one JSON line on stderr in the service's log format: never silently dropped. */
const STDERR_LOGGER: BackgroundErrorLogger = {
  warn(event, fields = {}) {
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'warn', event, ...fields })}\n`);
  },
};

export class ApiKeyRepository {
  private readonly logger: BackgroundErrorLogger;

  constructor(
    private readonly db: Knex,
    options: { logger?: BackgroundErrorLogger } = {},
  ) {
    this.logger = options.logger ?? STDERR_LOGGER;
  }

  /** Creates a key; the returned `value` is the only time the secret exists outside its hash. */
  async create(input: {
    organizationId: string;
    userId: string;
    name: string;
    scope: KeyScope;
    expiresAt: Date;
    /**
     * Default: none (the key edits nothing until clients are added).
     * Why null is still accepted: callers written before the allow-list had no "every client" pass
     * it; it means the same as empty: no client.
     */
    clientIds?: readonly string[] | null;
    /** Clients the key creates join its allow-list. Default false. */
    addsCreatedClients?: boolean;
  }): Promise<{ key: ApiKey; value: string }> {
    const secret = generateApiKeySecret();
    const [row] = await this.db('api_keys')
      .insert({
        organization_id: input.organizationId,
        user_id: input.userId,
        name: input.name,
        scope: input.scope,
        prefix: secret.prefix,
        key_hash: secret.hash,
        client_ids: [...new Set(input.clientIds ?? [])],
        adds_created_clients: input.addsCreatedClients ?? false,
        expires_at: input.expiresAt,
      })
      .returning(COLUMNS);
    return { key: toApiKey(row), value: secret.value };
  }

  async listForUser(organizationId: string, userId: string): Promise<ApiKey[]> {
    const rows = await this.db('api_keys')
      .select(COLUMNS)
      .where({ organization_id: organizationId, user_id: userId })
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
    return rows.map((r) => toApiKey(r));
  }

  async listForOrganization(
    organizationId: string,
  ): Promise<Array<ApiKey & { ownerEmail: string; ownerName: string }>> {
    const rows = await this.db('api_keys as k')
      .join('users as u', 'u.id', 'k.user_id')
      .select([...COLUMNS.map((c) => `k.${c}`), 'u.email as owner_email', 'u.name as owner_name'])
      .where('k.organization_id', organizationId)
      .orderBy([{ column: 'k.created_at', order: 'desc' }, { column: 'k.id' }]);
    return rows.map((r) => ({ ...toApiKey(r), ownerEmail: r.owner_email, ownerName: r.owner_name }));
  }

  async get(organizationId: string, id: string, ownerId?: string): Promise<ApiKey | null> {
    const q = this.db('api_keys').select(COLUMNS).where({ organization_id: organizationId, id });
    if (ownerId) q.andWhere({ user_id: ownerId });
    const row = await q.first();
    return row ? toApiKey(row) : null;
  }

  /** Renames a key, replaces its client allow-list or sets whether it adds the clients it creates (the owner's own keys only). */
  async update(
    organizationId: string,
    id: string,
    ownerId: string,
    patch: { name?: string; clientIds?: readonly string[]; addsCreatedClients?: boolean },
  ): Promise<ApiKey | null> {
    const values: Record<string, unknown> = { updated_at: this.db.fn.now(3) };
    if (patch.name !== undefined) values.name = patch.name;
    if (patch.clientIds !== undefined) values.client_ids = [...new Set(patch.clientIds)];
    if (patch.addsCreatedClients !== undefined) values.adds_created_clients = patch.addsCreatedClients;
    const [row] = await this.db('api_keys')
      .where({ organization_id: organizationId, id, user_id: ownerId })
      .update(values)
      .returning(COLUMNS);
    return row ? toApiKey(row) : null;
  }

  /**
   * Puts a client the key has just created on its allow-list, when the key says so
   * (`addsCreatedClients`). `full` when the list already holds MAX_ALLOWED_CLIENTS: nothing changed.
   */
  async allowCreatedClient(
    organizationId: string,
    keyId: string,
    clientId: string,
  ): Promise<'added' | 'not-asked' | 'full'> {
    // Why one statement: two clients created at once by one key both get on the list, and never past the cap.
    const added = await this.db('api_keys')
      .where({ organization_id: organizationId, id: keyId, adds_created_clients: true })
      .whereRaw('not (?::uuid = any(client_ids)) and cardinality(client_ids) < ?', [clientId, MAX_ALLOWED_CLIENTS])
      .update({
        client_ids: this.db.raw('array_append(client_ids, ?::uuid)', [clientId]),
        updated_at: this.db.fn.now(3),
      });
    if (added > 0) return 'added';
    const key = await this.db('api_keys')
      .where({ organization_id: organizationId, id: keyId })
      .first('adds_created_clients', 'client_ids');
    if (!key?.adds_created_clients) return 'not-asked';
    return (key.client_ids as string[]).includes(clientId) ? 'added' : 'full';
  }

  /** Revokes a key (idempotent). `ownerId` limits it to the owner's own keys. */
  async revoke(organizationId: string, id: string, byUserId: string, ownerId?: string): Promise<ApiKey | null> {
    const q = this.db('api_keys').where({ organization_id: organizationId, id });
    if (ownerId) q.andWhere({ user_id: ownerId });
    const [row] = await q
      .update({
        revoked_at: this.db.raw('coalesce(revoked_at, now())'),
        revoked_by: this.db.raw('coalesce(revoked_by, ?)', [byUserId]),
        updated_at: this.db.fn.now(3),
      })
      .returning(COLUMNS);
    return row ? toApiKey(row) : null;
  }

  /**
   * Resolves a presented key to its principal, or null for anything that must not pass
   * (malformed, unknown, expired, revoked, owner deactivated). Lookup is by hash through a
   * unique index, so the time taken does not depend on how close a guess is to a real key;
   * a malformed key still pays for the same hash and lookup.
   */
  async authenticate(presented: string, now = new Date()): Promise<KeyPrincipal | null> {
    const wellFormed = isWellFormedApiKey(presented);
    const hash = hashApiKey(wellFormed ? presented : `malformed:${presented.slice(0, 200)}`);
    const row = await this.db('api_keys as k')
      .join('users as u', 'u.id', 'k.user_id')
      .join('organizations as o', 'o.id', 'k.organization_id')
      .select(
        'k.id',
        'k.user_id',
        'k.organization_id',
        'k.scope',
        'k.client_ids',
        'k.adds_created_clients',
        'k.expires_at',
        'k.revoked_at',
        'k.last_used_at',
        'u.role',
        'u.active',
        'o.plan',
        'o.tenant_database',
      )
      .where('k.key_hash', hash)
      .first();
    if (!wellFormed || !row || row.revoked_at || row.expires_at <= now || !row.active) return null;
    if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() >= LAST_USED_GRANULARITY_MS) {
      // Why: at most one write per key per minute, and never on the request's critical path.
      this.db('api_keys')
        .where({ id: row.id })
        .andWhere((w) =>
          w.whereNull('last_used_at').orWhere('last_used_at', '<', new Date(now.getTime() - LAST_USED_GRANULARITY_MS)),
        )
        .update({ last_used_at: now })
        .catch((err: unknown) => {
          // Why only a warning: last_used_at is informational; the request itself went through.
          this.logger.warn('api_key_last_used_update_failed', {
            keyId: row.id,
            error: {
              name: (err as Error)?.name,
              code: (err as { code?: string })?.code,
              message: (err as Error)?.message,
            },
          });
        });
    }
    return {
      keyId: row.id,
      userId: row.user_id,
      organizationId: row.organization_id,
      role: row.role,
      scope: row.scope,
      allowedClientIds: row.client_ids ?? [],
      addsCreatedClients: row.adds_created_clients,
      plan: row.plan,
      tenantDatabase: row.tenant_database,
    };
  }
}
