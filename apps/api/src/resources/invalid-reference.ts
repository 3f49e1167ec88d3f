import { UnprocessableError } from '@service/http';

/** 422 `invalid_reference` naming the body field: the same answer for a missing row and one the caller may not see. */
export function invalidReference(field: string, message: string): UnprocessableError {
  return new UnprocessableError('invalid_reference', `${message} (${field})`, [
    { path: `/${field}`, message: 'does not exist or is not visible to you' },
  ]);
}
