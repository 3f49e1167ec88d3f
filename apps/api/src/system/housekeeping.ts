import type { SessionRepository } from '@service/auth';
import { pruneIdempotencyRecords, type JsonLogger, type RateLimitStore } from '@service/http';
import type { StoredFiles } from '@service/storage';
import type { TenantRouter } from '@service/tenancy';
import type { FileStoreStatus } from '../files/file-store-status.ts';

export interface Housekeeping {
  /** Runs every task once now (also what the schedule runs); failures are logged, never thrown. */
  runOnce(): Promise<void>;
  stop(): void;
}

interface Task {
  name: string;
  everyMs: number;
  run(now: number): Promise<number>;
}

/**
 * Deletes what can never count again, on a schedule: rate-limit counters whose windows are over
 * (every minute), expired or revoked sign-in sessions and idempotency records older than their
 * 24-hour window (every 15 minutes, in every tenant database); the file store is checked every
 * minute, and stored objects that no row holds are swept every 15 minutes. A failure is logged as
 * `housekeeping_failed` and retried at the next turn; a task never overlaps with itself.
 */
export function startHousekeeping(options: {
  rateLimitStore: RateLimitStore;
  sessions: SessionRepository;
  /**
   * The tenant databases whose idempotency records to prune: self-hosted the one, hosted those with an open pool
   * (tenants without traffic have nothing new to prune).
   */
  tenants: Pick<TenantRouter, 'forEachOpenTenant'>;
  logger: JsonLogger;
  /** The file store: checked every minute; unclaimed objects swept in every open tenant every 15 minutes. */
  files?: { stored: StoredFiles; status: FileStoreStatus };
  /** Scale of the schedule, for tests; default 1. */
  intervalScale?: number;
}): Housekeeping {
  const { logger } = options;
  const scale = options.intervalScale ?? 1;
  const files = options.files;
  const tasks: Task[] = [
    { name: 'rate_limit_counters', everyMs: 60_000, run: (now) => options.rateLimitStore.prune(now) },
    { name: 'sessions', everyMs: 15 * 60_000, run: (now) => options.sessions.pruneExpired(new Date(now)) },
    {
      name: 'idempotency_records',
      everyMs: 15 * 60_000,
      run: async (now) => {
        let removed = 0;
        let failure: unknown = null;
        // Why go on after a failure: one broken tenant must not keep the others' records forever.
        await options.tenants.forEachOpenTenant(
          async (tenant) => {
            removed += await pruneIdempotencyRecords(tenant, now);
          },
          (err) => (failure ??= err),
        );
        if (failure) throw failure;
        return removed;
      },
    },
    ...(files
      ? [
          {
            name: 'file_store_check',
            everyMs: 60_000,
            run: async () => {
              await files.status.check();
              return 0;
            },
          },
          {
            name: 'unclaimed_objects',
            everyMs: 15 * 60_000,
            run: async () => {
              let removed = 0;
              let failure: unknown = null;
              await options.tenants.forEachOpenTenant(
                async (tenant) => {
                  removed += (await files.stored.sweep(tenant)).removed;
                },
                (err) => (failure ??= err),
              );
              if (failure) throw failure;
              return removed;
            },
          },
        ]
      : []),
  ];
  const running = new Set<string>();

  async function runTask(task: Task): Promise<void> {
    if (running.has(task.name)) return;
    running.add(task.name);
    try {
      const removed = await task.run(Date.now());
      logger.debug('housekeeping', { task: task.name, removed });
    } catch (err) {
      logger.warn('housekeeping_failed', {
        task: task.name,
        message: 'will retry at the next turn',
        error: { name: (err as Error)?.name, code: (err as { code?: string })?.code, message: (err as Error)?.message },
      });
    } finally {
      running.delete(task.name);
    }
  }

  const timers = tasks.map((task) => {
    const timer = setInterval(() => void runTask(task), Math.max(1, Math.round(task.everyMs * scale)));
    timer.unref();
    return timer;
  });

  return {
    async runOnce() {
      await Promise.all(tasks.map(runTask));
    },
    stop() {
      for (const t of timers) clearInterval(t);
    },
  };
}
