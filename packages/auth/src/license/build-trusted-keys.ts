import { parsePublicKey, type TrustedKey } from './trusted-key.ts';
import { VENDOR_PUBLIC_KEYS } from './vendor-public-key.ts';

/**
 * The vendor keys plus extra keys from configuration (LICENSE_TRUSTED_KEYS, already split on
 * commas), without duplicates. Throws LicenseError('invalid_key') naming the first bad entry.
 */
export function buildTrustedKeys(extraBase64SpkiDer: readonly string[] = []): TrustedKey[] {
  const keys = [...VENDOR_PUBLIC_KEYS];
  for (const entry of extraBase64SpkiDer) {
    if (entry.trim() === '') continue;
    const key = parsePublicKey(entry);
    if (!keys.some((k) => k.keyId === key.keyId)) keys.push(key);
  }
  return keys;
}
