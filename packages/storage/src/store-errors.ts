/**
 * What can go wrong with the object store, in the words a request or an operator needs. The HTTP
 * layer maps them: unavailable to 503 `storage_unavailable`, full to 507 `storage_full`.
 */

/** The store cannot be reached or refuses the service (network, credentials, bucket gone, server error). */
export class StoreUnavailableError extends Error {
  constructor(
    /** A short reason without hosts or secrets: `unreachable`, `bad credentials`, `bucket missing`, `not writable`, ... */
    readonly reason: string,
    options: { cause?: unknown } = {},
  ) {
    super(`The file store is unavailable: ${reason}.`, { cause: options.cause });
    this.name = 'StoreUnavailableError';
  }
}

/** The store has no room for the object (a full disk or quota). Nothing of the object is kept. */
export class StoreFullError extends Error {
  constructor(options: { cause?: unknown } = {}) {
    super('The file store is full: there is no room for this file.', { cause: options.cause });
    this.name = 'StoreFullError';
  }
}

/** The store holds no object under this key. */
export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`No stored object ${key}.`);
    this.name = 'ObjectNotFoundError';
  }
}

/** An object with this key exists already: objects are written once. */
export class ObjectExistsError extends Error {
  constructor(readonly key: string) {
    super(`A stored object ${key} exists already.`);
    this.name = 'ObjectExistsError';
  }
}

/** A range outside the object (`start` at or past its size). */
export class RangeNotSatisfiableError extends Error {
  constructor(readonly size: number) {
    super(`The range is outside the object (${size} bytes).`);
    this.name = 'RangeNotSatisfiableError';
  }
}

/** Node's codes for a full disk or an exceeded quota. */
export function isNoSpaceError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
