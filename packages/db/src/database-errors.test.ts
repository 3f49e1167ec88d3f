import { describe, expect, it } from 'vitest';
import { describeDatabaseError, isDatabaseUnavailableError } from './database-errors.ts';

describe('isDatabaseUnavailableError', () => {
  it('recognises every way a hung or slow database fails a query, so the answer is 503 and not 500', () => {
    for (const err of [
      new Error('timeout expired'), // pg: a new connection did not complete in time
      new Error('Query read timeout'), // pg: the server did not answer a query at all
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      Object.assign(new Error('terminating connection due to idle-in-transaction timeout'), { code: '25P03' }),
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ]) {
      expect(isDatabaseUnavailableError(err), err.message).toBe(true);
    }
    expect(isDatabaseUnavailableError(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    expect(isDatabaseUnavailableError(new Error('a timeout expired somewhere else'))).toBe(false);
    expect(describeDatabaseError(Object.assign(new Error('x'), { code: '57014' }))).toBe('timed out');
  });
});
