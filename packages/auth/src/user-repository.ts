import type { Knex } from 'knex';
import { hashPassword } from './password.ts';
import type { Role } from './policy.ts';

export interface User {
  id: string;
  organizationId: string;
  email: string;
  name: string;
  role: Role;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
  deactivatedAt: Date | null;
}

type Row = {
  id: string;
  organization_id: string;
  email: string;
  name: string;
  role: Role;
  active: boolean;
  created_at: Date;
  updated_at: Date;
  deactivated_at: Date | null;
};

export const USER_COLUMNS = [
  'id',
  'organization_id',
  'email',
  'name',
  'role',
  'active',
  'created_at',
  'updated_at',
  'deactivated_at',
];

export function toUser(row: Row): User {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    name: row.name,
    role: row.role,
    active: row.active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deactivatedAt: row.deactivated_at,
  };
}

/** The organization already has a user with this email (other organizations are never consulted). */
export class EmailTakenError extends Error {
  constructor(email: string) {
    super(`A user with the email ${email} already exists in this organization.`);
    this.name = 'EmailTakenError';
  }
}

/** Refused so that an organization always keeps one active administrator, or nobody could manage it. */
export class LastAdministratorError extends Error {
  constructor(email: string) {
    super(`${email} is the last active administrator; make another user an administrator first.`);
    this.name = 'LastAdministratorError';
  }
}

/**
 * Locks the organization's active administrators and refuses when `userId` is the only one.
 * Why lock them all: two administrators demoting (or deactivating) each other at once would each
 * see the other still there and both succeed. With the rows locked, the second waits for the first
 * to commit, then re-reads the locked rows (PostgreSQL re-checks the WHERE on a row that changed)
 * and sees the truth. Ordered by id so concurrent callers lock in the same order.
 */
async function assertNotLastAdmin(trx: Knex.Transaction, organizationId: string, userId: string): Promise<void> {
  const admins = (await trx('users')
    .select('id', 'email')
    .where({ organization_id: organizationId, role: 'admin', active: true })
    .orderBy('id')
    .forUpdate()) as Array<{ id: string; email: string }>;
  const target = admins.find((a) => a.id === userId);
  if (target && admins.length <= 1) throw new LastAdministratorError(target.email);
}

/** Users of the control plane. Every query is scoped to one organization. */
export class UserRepository {
  constructor(private readonly db: Knex) {}

  async list(organizationId: string, filter: { ids?: string[] } = {}): Promise<User[]> {
    const q = this.db('users')
      .select(USER_COLUMNS)
      .where({ organization_id: organizationId })
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    if (filter.ids) q.whereIn('id', filter.ids);
    return (await q).map(toUser);
  }

  async get(organizationId: string, id: string): Promise<User | null> {
    const row = await this.db('users').select(USER_COLUMNS).where({ organization_id: organizationId, id }).first();
    return row ? toUser(row) : null;
  }

  /** The organization's user with this email (e-mail addresses are unique per organization). */
  async findByEmail(organizationId: string, email: string): Promise<User | null> {
    const row = await this.db('users').select(USER_COLUMNS).where({ organization_id: organizationId, email }).first();
    return row ? toUser(row) : null;
  }

  /**
   * The account a sign-in names, with its password hash: the user with this email in the
   * organization whose slug is `organizationSlug`. Without a slug (self-hosted, which has one
   * organization) the user with this email. One indexed query whatever the outcome, so an unknown
   * organization, an unknown address and an address of another organization cost the same.
   */
  async findForSignIn(
    email: string,
    organizationSlug: string | null,
  ): Promise<(User & { passwordHash: string | null }) | null> {
    const q = this.db('users as u')
      .select([...USER_COLUMNS.map((c) => `u.${c}`), 'u.password_hash'])
      .where('u.email', email)
      .orderBy([{ column: 'u.created_at' }, { column: 'u.id' }])
      .first();
    if (organizationSlug !== null)
      q.join('organizations as o', 'o.id', 'u.organization_id').where('o.slug', organizationSlug);
    const row = await q;
    return row ? { ...toUser(row), passwordHash: row.password_hash } : null;
  }

  async create(input: {
    organizationId: string;
    email: string;
    name: string;
    role: Role;
    password?: string | null;
  }): Promise<User> {
    try {
      const [row] = await this.db('users')
        .insert({
          organization_id: input.organizationId,
          email: input.email,
          name: input.name,
          role: input.role,
          password_hash: input.password ? await hashPassword(input.password) : null,
        })
        .returning(USER_COLUMNS);
      return toUser(row);
    } catch (err) {
      // Why by constraint name: only the per-organization address is a conflict the caller may hear of.
      if ((err as { constraint?: string }).constraint === 'users_organization_email_unique')
        throw new EmailTakenError(input.email);
      throw err;
    }
  }

  /**
   * Changes a user's name or role. Taking the administrator role from the last active
   * administrator throws LastAdministratorError; the check and the change are one transaction.
   */
  async update(organizationId: string, id: string, patch: { name?: string; role?: Role }): Promise<User | null> {
    return this.db.transaction(async (trx) => {
      if (patch.role !== undefined && patch.role !== 'admin') await assertNotLastAdmin(trx, organizationId, id);
      const [row] = await trx('users')
        .where({ organization_id: organizationId, id })
        .update({ ...patch, updated_at: trx.fn.now(3) })
        .returning(USER_COLUMNS);
      return row ? toUser(row) : null;
    });
  }

  async setPassword(id: string, password: string): Promise<void> {
    await this.db('users')
      .where({ id })
      .update({ password_hash: await hashPassword(password), updated_at: this.db.fn.now(3) });
  }

  /**
   * Deactivates a user and, in the same transaction, revokes all of their API keys and sign-in
   * sessions, so nothing they hold works a moment later. Deactivating the last active
   * administrator throws LastAdministratorError.
   */
  async deactivate(organizationId: string, id: string, byUserId: string): Promise<User | null> {
    return this.db.transaction(async (trx) => {
      await assertNotLastAdmin(trx, organizationId, id);
      const [row] = await trx('users')
        .where({ organization_id: organizationId, id })
        .update({
          active: false,
          deactivated_at: trx.raw('coalesce(deactivated_at, now())'),
          updated_at: trx.fn.now(3),
        })
        .returning(USER_COLUMNS);
      if (!row) return null;
      await trx('api_keys')
        .where({ user_id: id })
        .whereNull('revoked_at')
        .update({ revoked_at: trx.fn.now(3), revoked_by: byUserId });
      await trx('sessions')
        .where({ user_id: id })
        .whereNull('revoked_at')
        .update({ revoked_at: trx.fn.now(3) });
      return toUser(row);
    });
  }

  async countActiveAdmins(organizationId: string): Promise<number> {
    const [{ n }] = (await this.db('users')
      .where({ organization_id: organizationId, role: 'admin', active: true })
      .count({ n: '*' })) as [{ n: number }];
    return Number(n);
  }
}
