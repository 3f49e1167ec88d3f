import { parsePublicKey, type TrustedKey } from './trusted-key.ts';

// Why only the public half is here: anyone holding the private key can issue licences. The
// private key stays with the vendor (outside this repository) and is used by `npm run license -- sign`.
/** The vendor's licence signing key (Ed25519, base64 SPKI DER), key id a006e716. */
export const VENDOR_PUBLIC_KEY_BASE64 = 'MCowBQYDK2VwAyEAb1fxqQJ5BrTW5m4wdNUfyKFTKq+sMr0pKaLEd04Bcwk=';

/**
 * The keys every build trusts. A list so a rotated key can be added beside the old one and
 * licences signed with either keep working.
 */
export const VENDOR_PUBLIC_KEYS: readonly TrustedKey[] = [parsePublicKey(VENDOR_PUBLIC_KEY_BASE64)];
