import type { Knex } from 'knex';

/** Rows one write must add to a table before its statistics are refreshed right away. */
export const BULK_ROWS = 1000;

/** What to refresh: tables to analyze, and narrow tables to vacuum as well (for index-only scans). */
export interface StatisticsRefresh {
  analyze: readonly string[];
  vacuum: readonly string[];
}

/**
 * Refreshes the planner's statistics of tables a bulk write (a scan or Markdown import) just
 * filled, once its transaction has committed. Why: autovacuum analyzes a table only after it has
 * changed by a tenth and its next round comes (a minute or more later), and until then the
 * planner estimates a report of 50,000 findings as the few rows it had before. Vacuuming a narrow
 * table (report_findings) also marks its pages all-visible, so pages of a report are read from
 * the order index alone.
 *
 * It runs in the background, after the commit, so the request that imported does not wait for it;
 * `SKIP_LOCKED` skips a table autovacuum or another refresh holds instead of queueing behind it;
 * and at most one refresh runs per tenant database at a time (one more is remembered while it
 * runs). A failure is only reported: autovacuum refreshes the statistics later anyway.
 */
export class TableStatistics {
  private readonly running = new WeakMap<Knex, { again: StatisticsRefresh | null; done: Promise<void> }>();

  constructor(private readonly onError: (err: unknown) => void = () => undefined) {}

  /** After `trx` commits, refreshes the tables of `db` when `rows` reached BULK_ROWS. */
  refreshAfterCommit(trx: Knex.Transaction, db: Knex, tables: StatisticsRefresh, rows: number): void {
    if (rows < BULK_ROWS) return;
    trx.executionPromise.then(
      () => this.refresh(db, tables),
      () => undefined,
    );
  }

  /** Resolves once the refresh running for `db` (if any) is done: for tests and benchmarks. */
  async idle(db: Knex): Promise<void> {
    await this.running.get(db)?.done;
  }

  private refresh(db: Knex, tables: StatisticsRefresh): void {
    const current = this.running.get(db);
    if (current) {
      current.again = merge(current.again, tables);
      return;
    }
    const state = { again: null as StatisticsRefresh | null, done: Promise.resolve() };
    this.running.set(db, state);
    state.done = (async () => {
      let next: StatisticsRefresh | null = tables;
      while (next) {
        const vacuum = new Set(next.vacuum);
        const analyze = [...new Set(next.analyze)].filter((t) => !vacuum.has(t));
        try {
          // Why one statement each: VACUUM cannot run in a transaction, and these run on the pool.
          if (vacuum.size > 0) await db.raw(`vacuum (analyze, skip_locked) ${list(vacuum.size)}`, [...vacuum]);
          if (analyze.length > 0) await db.raw(`analyze (skip_locked) ${list(analyze.length)}`, analyze);
        } catch (err) {
          this.onError(err);
        }
        next = state.again;
        state.again = null;
      }
      this.running.delete(db);
    })();
  }
}

function list(n: number): string {
  return Array.from({ length: n }, () => '??').join(', ');
}

function merge(a: StatisticsRefresh | null, b: StatisticsRefresh): StatisticsRefresh {
  return { analyze: [...(a?.analyze ?? []), ...b.analyze], vacuum: [...(a?.vacuum ?? []), ...b.vacuum] };
}
