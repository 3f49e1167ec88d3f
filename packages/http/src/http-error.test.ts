import { describe, expect, it } from 'vitest';
import {
  BEARER_CHALLENGE,
  ConflictError,
  HttpError,
  UnauthenticatedError,
  UnavailableError,
  UnprocessableError,
} from './http-error.ts';

describe('HttpError details', () => {
  it('has one shape for every code: an array of { path, message[, value] }', () => {
    expect(
      new UnprocessableError('invalid_reference', 'x', [{ path: '/clientId', message: 'does not exist' }]).details,
    ).toEqual([{ path: '/clientId', message: 'does not exist' }]);
    expect(() => new HttpError(409, 'conflict', 'x', { details: { updatedAt: 'y' } as never })).toThrow(
      /details must be an array of \{ path, message\[, value\] \} objects/,
    );
    expect(() => new HttpError(400, 'x', 'x', { details: [{ path: '/a' }] as never })).toThrow(TypeError);
    expect(() => new HttpError(400, 'x', 'x', { details: [{ path: '/a', message: 'm', extra: 1 }] as never })).toThrow(
      TypeError,
    );
  });

  it('turns the object form of a conflict into the array form', () => {
    expect(new ConflictError('changed', 'conflict', { updatedAt: '2026-11-02T09:30:00.000Z' }).details).toEqual([
      { path: '/updatedAt', message: 'is now 2026-11-02T09:30:00.000Z', value: '2026-11-02T09:30:00.000Z' },
    ]);
  });

  it('carries the headers clients need: WWW-Authenticate on 401, Retry-After on 503', () => {
    expect(new UnauthenticatedError('no', { challenge: BEARER_CHALLENGE }).headers).toEqual({
      'WWW-Authenticate': 'Bearer realm="service"',
    });
    expect(new UnavailableError().headers).toEqual({ 'Retry-After': '5' });
  });
});
