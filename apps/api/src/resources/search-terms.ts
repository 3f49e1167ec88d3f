import type { Knex } from 'knex';
import { isStatementTimeout, limitStatementTime } from '@service/db';
import { StatementTimeoutError, ValidationError } from '@service/http';

/**
 * Caps of a list's `q`. Why these: a term becomes a phrase of its parts (`10.0.0.5` is
 * `10 <-> 0 <-> 0 <-> 5`, see the tenant migration "identifier_search"), whose cost on each row
 * grows with the number of parts; with the caps, the query PostgreSQL evaluates has at most 16
 * phrases of at most 32 parts, whatever the text, and the identifier lexemes it may equal are cut
 * at 64 characters anyway.
 */
export const SEARCH_LIMITS = { chars: 200, terms: 16, termChars: 64 } as const;

/** The caps in words, for the OpenAPI document and the guide. */
export const SEARCH_RULE =
  `At most ${SEARCH_LIMITS.chars} characters in at most ${SEARCH_LIMITS.terms} terms (separated by ` +
  `spaces), each term at most ${SEARCH_LIMITS.termChars} characters; more answers 400 \`validation_failed\`.`;

/** The whitespace-separated terms of `q`, as the database splits them. */
export function searchTermsOf(q: string): string[] {
  return q.split(/\s+/).filter((t) => t !== '');
}

/** Answers 400 `validation_failed` on `/q` when `q` has more or longer terms than SEARCH_LIMITS allow. */
export function assertSearchTerms(q: string): void {
  const terms = searchTermsOf(q);
  if (terms.length > SEARCH_LIMITS.terms)
    throw new ValidationError(
      `The query field /q has ${terms.length} terms; a search takes at most ${SEARCH_LIMITS.terms}.`,
      [{ path: '/q', message: `must have at most ${SEARCH_LIMITS.terms} terms (separated by spaces)` }],
    );
  const long = terms.find((t) => t.length > SEARCH_LIMITS.termChars);
  if (long)
    throw new ValidationError(
      `The query field /q has a term of ${long.length} characters; each term may have at most ` +
        `${SEARCH_LIMITS.termChars}.`,
      [{ path: '/q', message: `each term must have at most ${SEARCH_LIMITS.termChars} characters` }],
    );
}

/**
 * Runs a search in a transaction whose statements may take at most `ms` (SEARCH_STATEMENT_TIMEOUT_MS),
 * so no `q` can hold a connection longer; past it, 503 `statement_timeout` naming the limit and the query's size.
 */
export async function searchWithinLimit<T>(
  db: Knex,
  ms: number,
  q: string,
  work: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  try {
    return await db.transaction(async (trx) => {
      await limitStatementTime(trx, ms);
      return work(trx);
    });
  } catch (err) {
    if (!isStatementTimeout(err)) throw err;
    throw new StatementTimeoutError(
      `The search ran past ${ms < 1000 ? `${ms} ms` : `${ms / 1000} s`}, the time limit of a search statement (SEARCH_STATEMENT_TIMEOUT_MS), ` +
        `for q of ${q.length} characters in ${searchTermsOf(q).length} terms; search with fewer or more specific terms.`,
      err,
    );
  }
}
