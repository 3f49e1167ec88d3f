import type { Knex } from 'knex';
import { createKnex, describeDatabaseError, isDatabaseUnavailableError, migrationConfig } from '@service/db';
import { LOCK_SPACE, withControlPlaneLock } from './control-plane-lock.ts';
import { redactUrl } from './tenant-servers.ts';

/** The tenant migrations of `migrations/tenant`, the same as @service/db applies to the configured tenant database. */
export function tenantMigrationConfig(): Knex.MigratorConfig {
  return migrationConfig('tenant');
}

/** How long a process waits for another one migrating the same tenant before it reports a failure. */
const MIGRATION_LOCK_WAIT_MS = 30 * 60_000;

/**
 * Applies pending tenant migrations to one tenant database, holding the tenant's migration lock
 * in the control plane so two processes starting together migrate it once (the second waits, then
 * finds nothing to do). Its own short-lived handle without statement timeouts: a migration of a
 * large workspace may rightly run longer than a request. Returns the migrations applied.
 */
export async function migrateTenantDatabase(options: {
  controlPlane: Knex;
  organizationId: string;
  url: string;
  migrations?: Knex.MigratorConfig;
  connectTimeoutMs?: number;
  onWait?: () => void;
}): Promise<string[]> {
  const result = await withControlPlaneLock(
    options.controlPlane,
    LOCK_SPACE.tenantMigration,
    options.organizationId,
    async () => {
      const db = createKnex(options.url, 2, 'service:tenant-migrate', {
        acquireTimeoutMs: options.connectTimeoutMs ?? 10_000,
        statementTimeoutMs: 0,
      });
      try {
        const [, applied] = (await db.migrate.latest(options.migrations ?? tenantMigrationConfig())) as [
          number,
          string[],
        ];
        return applied;
      } finally {
        await db.destroy();
      }
    },
    { maxWaitMs: MIGRATION_LOCK_WAIT_MS, onWait: options.onWait },
  );
  if (!result.acquired)
    throw new Error(
      `another process has been migrating this tenant for over ${MIGRATION_LOCK_WAIT_MS / 60_000} minutes`,
    );
  return result.value;
}

/**
 * A short reason for a failed tenant operation, for the control plane and the logs: never a URL with its password,
 * never a stack.
 */
export function describeTenantFailure(err: unknown): string {
  if (isDatabaseUnavailableError(err)) return describeDatabaseError(err);
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  const redacted = message
    .replace(/postgres(?:ql)?:\/\/[^\s'"]+/g, (u) => redactUrl(u))
    .replace(/\s+/g, ' ')
    .trim();
  return `${typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? `${e.code} ` : ''}${redacted}`.slice(0, 300);
}
