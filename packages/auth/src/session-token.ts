import { createHash, randomBytes } from 'node:crypto';

export const SESSION_COOKIE = 'service_session';
/** A session ends after this long without a request... */
export const SESSION_IDLE_MS = 2 * 60 * 60 * 1000;
/** ...and after this long in any case. */
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;

export function generateSessionToken(): { value: string; hash: Buffer } {
  const value = randomBytes(32).toString('base64url');
  return { value, hash: hashSessionToken(value) };
}

export function hashSessionToken(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
