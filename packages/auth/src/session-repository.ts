import type { Knex } from 'knex';
import type { Role } from './policy.ts';
import { generateSessionToken, hashSessionToken, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from './session-token.ts';

export interface SessionPrincipal {
  sessionId: string;
  userId: string;
  organizationId: string;
  role: Role;
  email: string;
  name: string;
  tenantDatabase: string;
  /** The organization's plan (hosted: `business` and above include the REST API). */
  plan: string;
}

export class SessionRepository {
  constructor(private readonly db: Knex) {}

  async create(userId: string, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
    const { value, hash } = generateSessionToken();
    const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
    await this.db('sessions').insert({
      user_id: userId,
      token_hash: hash,
      created_at: now,
      last_seen_at: now,
      expires_at: expiresAt,
    });
    return { token: value, expiresAt };
  }

  /**
   * The live session for a cookie value, refreshing its idle timer; null when unknown, expired, idle too long or
   * revoked.
   */
  async resolve(token: string, now = new Date()): Promise<SessionPrincipal | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const row = await this.db('sessions as s')
      .join('users as u', 'u.id', 's.user_id')
      .join('organizations as o', 'o.id', 'u.organization_id')
      .select(
        's.id',
        's.user_id',
        's.expires_at',
        's.last_seen_at',
        's.revoked_at',
        'u.organization_id',
        'u.role',
        'u.email',
        'u.name',
        'u.active',
        'o.tenant_database',
        'o.plan',
      )
      .where('s.token_hash', hashSessionToken(token))
      .first();
    if (
      !row ||
      row.revoked_at ||
      !row.active ||
      row.expires_at <= now ||
      now.getTime() - row.last_seen_at.getTime() > SESSION_IDLE_MS
    )
      return null;
    if (now.getTime() - row.last_seen_at.getTime() > 60_000) {
      await this.db('sessions').where({ id: row.id }).update({ last_seen_at: now });
    }
    return {
      sessionId: row.id,
      userId: row.user_id,
      organizationId: row.organization_id,
      role: row.role,
      email: row.email,
      name: row.name,
      tenantDatabase: row.tenant_database,
      plan: row.plan,
    };
  }

  /**
   * Deletes sessions that can never be used again: past their absolute end, idle for longer than
   * the idle limit, or revoked. Returns how many. The service calls it on a schedule.
   */
  async pruneExpired(now = new Date()): Promise<number> {
    return this.db('sessions')
      .where('expires_at', '<=', now)
      .orWhere('last_seen_at', '<', new Date(now.getTime() - SESSION_IDLE_MS))
      .orWhereNotNull('revoked_at')
      .delete();
  }

  async revoke(token: string): Promise<void> {
    await this.db('sessions')
      .where({ token_hash: hashSessionToken(token) })
      .whereNull('revoked_at')
      .update({ revoked_at: this.db.fn.now(3) });
  }
}
