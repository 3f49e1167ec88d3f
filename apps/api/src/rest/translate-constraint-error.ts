import { ConflictError, HttpError, UnprocessableError } from '@service/http';

/**
 * Safety net for constraint violations a handler did not check first (usually two requests
 * racing): a clear 4xx instead of a 500. Constraint names are ours, never user data.
 */
export function translateConstraintError(err: unknown): HttpError | null {
  const e = err as { code?: string; constraint?: string };
  switch (e?.code) {
    case '23505':
      return new ConflictError(
        'This conflicts with an existing row (it may have been created by a concurrent request).',
        'conflict',
      );
    case '23503':
      return new UnprocessableError('invalid_reference', 'A referenced row does not exist.');
    case '22P02':
    case '22007':
    case '22008':
      return new HttpError(400, 'validation_failed', 'A value has the wrong format.');
    default:
      return null;
  }
}
