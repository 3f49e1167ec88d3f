import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'service_sk_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters carry 256 bits. */
const SECRET_LENGTH = 43;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH}}$`);
/** How much of the key is kept in clear to recognise it in lists. */
const DISPLAY_LENGTH = API_KEY_PREFIX.length + 6;

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // Why: rejection sampling keeps every character equally likely (256 is not a multiple of 62).
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export interface NewApiKeySecret {
  /** The full key, shown to its owner once. */
  value: string;
  /** Display prefix kept in clear, e.g. `service_sk_a1B2c3`. */
  prefix: string;
  hash: Buffer;
}

export function hashApiKey(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export function generateApiKeySecret(): NewApiKeySecret {
  const value = `${API_KEY_PREFIX}${randomBase62(SECRET_LENGTH)}`;
  return { value, prefix: value.slice(0, DISPLAY_LENGTH), hash: hashApiKey(value) };
}

export function isWellFormedApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

export function hashesEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
