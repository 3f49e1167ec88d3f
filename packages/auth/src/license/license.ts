// The shape of a licence, signed or evaluation. Pure types and constants; the files beside this
// one read, write and judge licences.

/** The envelope format this service reads and writes. A new format gets a new name. */
export const LICENSE_FORMAT = 'service-license-v1';

export type LicenseEdition = 'self-hosted' | 'hosted';
export const LICENSE_EDITIONS: readonly LicenseEdition[] = ['self-hosted', 'hosted'];

/** Every feature a licence can grant. An evaluation licence grants all of them. */
export const ALL_FEATURES = ['api', 'docx-export', 'scanner-import', 'markdown-import'] as const;
export type LicenseFeature = (typeof ALL_FEATURES)[number];

/** What the vendor signs. Dates are ISO 8601 strings exactly as signed. */
export interface LicensePayload {
  id: string;
  holder: string;
  edition: LicenseEdition;
  // Why string[] and not LicenseFeature[]: a licence signed by a newer release may name a
  // feature this release does not know yet; it must still verify, the unknown name is just unused.
  features: string[];
  seats: number;
  issuedAt: string;
  expiresAt: string;
}

interface LicenseState extends LicensePayload {
  /** Whether the licence had expired at the time it was read; recompute with isLicenseExpired. */
  expired: boolean;
}

/** A licence file verified against a trusted key; keyId names the key whose signature matched. */
export interface SignedLicense extends LicenseState {
  kind: 'signed';
  keyId: string;
}

/** The 30-day licence a fresh installation runs on until a signed licence is installed. */
export interface EvaluationLicense extends LicenseState {
  kind: 'evaluation';
  keyId: null;
}

export type License = SignedLicense | EvaluationLicense;
