export type ReleaseKitErrorCode =
  | 'invalid_version'
  | 'invalid_manifest'
  | 'invalid_sums'
  | 'package_files'
  | 'missing_image'
  | 'unsafe_path'
  | 'signature_missing'
  | 'signature_malformed'
  | 'signature_mismatch'
  | 'signature_unknown_key'
  | 'invalid_key';

/**
 * The one error of this package: a stable `code`, a message naming the concrete file, version or
 * key, and a hint with the next step. The installer and the release tool turn it into their
 * operator error unchanged.
 */
export class ReleaseKitError extends Error {
  override readonly name = 'ReleaseKitError';
  readonly code: ReleaseKitErrorCode;
  readonly hint: string | undefined;

  constructor(code: ReleaseKitErrorCode, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
  }
}
