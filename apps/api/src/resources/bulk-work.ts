import type { Knex } from 'knex';
import { isStatementTimeout, limitStatementTime } from '@service/db';
import { StatementTimeoutError } from '@service/http';

/**
 * Work of one request that may be large (imports, retests): its transaction's statements get the
 * time limit made for bulk work (BULK_STATEMENT_TIMEOUT_MS) instead of the pool's, so a large
 * import on a busy machine finishes. A statement that still runs past it answers 503
 * `statement_timeout` naming the limit, `what` (the work and its size) and, when known, the step
 * that ran too long (`bulkStep`), never "database unavailable": the database is there, and the
 * same request would fail the same way.
 */
export async function withinBulkLimit<T>(
  trx: Knex.Transaction,
  ms: number,
  what: string,
  work: () => Promise<T>,
): Promise<T> {
  await limitStatementTime(trx, ms);
  try {
    return await work();
  } catch (err) {
    if (!isStatementTimeout(err)) throw err;
    const step = (err as { bulkStep?: unknown }).bulkStep;
    throw new StatementTimeoutError(
      `${what} ran past ${formatSeconds(ms)}, the time limit of one database statement of bulk work ` +
        `(BULK_STATEMENT_TIMEOUT_MS)${typeof step === 'string' ? `, while ${step}` : ''}; nothing was written. ` +
        'Split the work into smaller parts, or ask the operator to raise the limit.',
      err,
    );
  }
}

/** Reads for bulk work (a whole report for an export) in a read-only transaction of its own, within the bulk time limit. */
export function readWithinBulkLimit<T>(
  db: Knex,
  ms: number,
  what: string,
  work: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  return db.transaction((trx) => withinBulkLimit(trx, ms, what, () => work(trx)), { readOnly: true });
}

/** Runs one statement of bulk work, naming it (`inserting findings 1 to 500 of 50,000`) should it time out. */
export async function bulkStep<T>(step: string, statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (err) {
    if (isStatementTimeout(err) && err !== null && typeof err === 'object') Object.assign(err, { bulkStep: step });
    throw err;
  }
}

const formatSeconds = (ms: number) =>
  ms < 1000 ? `${ms} ms` : `${(ms / 1000).toLocaleString('en', { maximumFractionDigits: 1 })} s`;

/** `50,000`: counts in messages. */
export const count = (n: number) => n.toLocaleString('en');
