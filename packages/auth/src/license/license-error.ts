/**
 * Why a licence (or a licence key) could not be used. `reason` is stable for code and logs;
 * the message names the concrete problem and `hint` the next step for the operator.
 */
export type LicenseErrorReason =
  | 'empty'
  | 'invalid_json'
  | 'unsupported_format'
  | 'malformed'
  | 'signature_mismatch'
  | 'invalid_payload'
  | 'invalid_key'
  | 'expired';

export interface LicenseErrorOptions {
  hint?: string;
  cause?: unknown;
}

export class LicenseError extends Error {
  override readonly name = 'LicenseError';
  readonly reason: LicenseErrorReason;
  readonly hint?: string;

  constructor(reason: LicenseErrorReason, message: string, options: LicenseErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    if (options.hint !== undefined) this.hint = options.hint;
  }
}
