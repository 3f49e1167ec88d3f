import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { BadRequestError, ConflictError, UnprocessableError } from './http-error.ts';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface IdempotencyOutcome extends StoredResponse {
  replayed: boolean;
}

/** A stable digest of what makes two requests "the same": method, path and body. */
export function requestFingerprint(parts: { method: string; path: string; body: unknown; extra?: string }): string {
  return createHash('sha256')
    .update(parts.method)
    .update('\u0000')
    .update(parts.path)
    .update('\u0000')
    .update(canonicalJson(parts.body))
    .update('\u0000')
    .update(parts.extra ?? '')
    .digest('hex');
}

function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** An empty or malformed key is refused (400 `invalid_idempotency_key`), never silently ignored. */
export function validateIdempotencyKey(key: string): void {
  if (!KEY_PATTERN.test(key)) {
    throw new BadRequestError(
      'Idempotency-Key must be 1 to 255 printable ASCII characters (no spaces).',
      'invalid_idempotency_key',
      [{ path: '/Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters (no spaces)' }],
    );
  }
}

/**
 * Runs `work` in one transaction on `db` and makes it idempotent per (API key, Idempotency-Key):
 * - a transaction-scoped advisory lock on the pair: a second request while the first is running
 *   answers 409 `idempotency_in_progress` instead of waiting or running twice;
 * - a committed record of the same pair within 24 hours: the stored response is replayed, or 422
 *   `idempotency_key_reused` when the request differs;
 * - otherwise `work` runs and its response is recorded in the same transaction as the rows it
 *   created, so a crash can never leave rows without a record (a retry would duplicate them) or
 *   a record without rows.
 * Without a key, `work` simply runs in a transaction.
 */
export async function runIdempotent(
  db: Knex,
  scope: { apiKeyId: string; key: string | null; fingerprint: string },
  work: (trx: Knex.Transaction) => Promise<StoredResponse>,
): Promise<IdempotencyOutcome> {
  if (!scope.key) return { ...(await db.transaction(work)), replayed: false };
  validateIdempotencyKey(scope.key);
  const key = scope.key;
  return db.transaction(async (trx) => {
    const lockKey = createHash('sha256').update(scope.apiKeyId).update('\u0000').update(key).digest().readBigInt64BE(0);
    const { rows } = await trx.raw('select pg_try_advisory_xact_lock(?) as locked', [lockKey.toString()]);
    if (!rows[0].locked) {
      throw new ConflictError(
        'A request with this Idempotency-Key is still being processed; retry when it has finished.',
        'idempotency_in_progress',
      );
    }
    const existing = await trx('idempotency_records').where({ api_key_id: scope.apiKeyId, key }).first();
    if (existing && Date.now() - existing.created_at.getTime() < IDEMPOTENCY_WINDOW_MS) {
      if (existing.request_hash !== scope.fingerprint) {
        throw new UnprocessableError(
          'idempotency_key_reused',
          'This Idempotency-Key was already used for a different request; use a new key for a new request.',
        );
      }
      return { status: existing.status, headers: existing.headers, body: existing.body, replayed: true };
    }
    if (existing) await trx('idempotency_records').where({ api_key_id: scope.apiKeyId, key }).delete();
    const response = await work(trx);
    await trx('idempotency_records').insert({
      api_key_id: scope.apiKeyId,
      key,
      request_hash: scope.fingerprint,
      status: response.status,
      headers: JSON.stringify(response.headers),
      body: JSON.stringify(response.body ?? null),
    });
    return { ...response, replayed: false };
  });
}

/** Removes records older than the window; the app calls it now and then. */
export async function pruneIdempotencyRecords(db: Knex, now = Date.now()): Promise<number> {
  return db('idempotency_records')
    .where('created_at', '<', new Date(now - IDEMPOTENCY_WINDOW_MS))
    .delete();
}
