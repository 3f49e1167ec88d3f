import knex from 'knex';

const { KnexTimeoutError } = knex;

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '3D000', // database does not exist
  '55000', // database is not accepting connections (ALLOW_CONNECTIONS false)
  '28P01', // authentication failed
  '28000',
  '57014', // query_canceled: statement_timeout (the database is too slow right now)
  '25P03', // idle_in_transaction_session_timeout
]);

/**
 * True when an error means "the database cannot be reached right now" (as opposed to a bad query).
 * The HTTP layer answers these with 503 `unavailable`.
 */
export function isDatabaseUnavailableError(err: unknown): boolean {
  if (err instanceof KnexTimeoutError) return true;
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown; name?: unknown };
  if (typeof e.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  // Why `timeout expired`: it is pg's whole message when a new connection does not complete in time.
  return /Connection terminated|connection timeout|Timeout acquiring a connection|Client has encountered a connection error|not queryable|Query read timeout|^timeout expired$/i.test(
    message,
  );
}

/** A short reason for health output: never a host name, URL or credential. */
export function describeDatabaseError(err: unknown): string {
  if (err instanceof KnexTimeoutError) return 'timed out waiting for a connection';
  const e = (err ?? {}) as { code?: string; message?: string };
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case '3D000':
      return 'database does not exist';
    case '55000':
    case '57P03':
      return 'database is not accepting connections';
    case '57P01':
    case '57P02':
      return 'database is shutting down';
    case '53300':
      return 'too many connections';
    case '57014':
    case '25P03':
      return 'timed out';
    case '28P01':
    case '28000':
      return 'authentication failed';
    default:
      if (/timeout|timed out/i.test(e.message ?? '')) return 'timed out';
      if (/terminated/i.test(e.message ?? '')) return 'connection terminated';
      return 'query failed';
  }
}
