import type { Knex } from 'knex';
import type { Logger } from '@service/db';
import { mapWithConcurrency } from './map-with-concurrency.ts';
import { OrganizationRepository, type Organization, type OrganizationState } from './organization-repository.ts';
import { describeTenantFailure, migrateTenantDatabase } from './tenant-migrations.ts';
import { resolveTenantUrl, type TenantTopology } from './tenant-topology.ts';

export interface TenantMigrationOutcome {
  organizationId: string;
  name: string;
  tenantServer: string;
  tenantDatabase: string;
  /** `skipped`: kept out of service by an operator (e.g. being moved); left alone. */
  outcome: 'migrated' | 'up_to_date' | 'failed' | 'skipped';
  applied: string[];
  reason: string | null;
  /** The organization's state after this run. */
  state: OrganizationState;
  durationMs: number;
}

export interface MigrateAllTenantsResult {
  outcomes: TenantMigrationOutcome[];
  migrated: number;
  failed: number;
}

/**
 * Applies the tenant migrations to every active or unavailable organization's tenant database, at
 * most `concurrency` at once. A tenant whose migration fails is marked `unavailable` (cause
 * `migration_failed`, with the reason) and the others go on; one that was unavailable for that
 * cause and now migrates is active again. Tenants an operator took out of service are skipped.
 * Each outcome is logged (`tenant_migrated`, `tenant_migration_failed`) and returned. Never throws
 * for a tenant; only when the control plane itself cannot be read.
 */
export async function migrateAllTenants(options: {
  controlPlane: Knex;
  topology: TenantTopology;
  /** TENANT_MIGRATION_CONCURRENCY */
  concurrency: number;
  logger?: Logger;
  /** Tests inject a broken source; default the tenant migrations of `migrations/tenant`. */
  migrationsFor?: (organization: Organization) => Knex.MigratorConfig | undefined;
  connectTimeoutMs?: number;
}): Promise<MigrateAllTenantsResult> {
  const organizations = new OrganizationRepository(options.controlPlane);
  const candidates = await organizations.list({ states: ['active', 'unavailable'] });
  const outcomes = await mapWithConcurrency(
    candidates,
    options.concurrency,
    async (org): Promise<TenantMigrationOutcome> => {
      const started = Date.now();
      const base = {
        organizationId: org.organizationId,
        name: org.name,
        tenantServer: org.tenantServer,
        tenantDatabase: org.tenantDatabase,
      };
      if (org.state === 'unavailable' && org.stateCause !== 'migration_failed') {
        return { ...base, outcome: 'skipped', applied: [], reason: org.stateReason, state: org.state, durationMs: 0 };
      }
      try {
        const applied = await migrateTenantDatabase({
          controlPlane: options.controlPlane,
          organizationId: org.organizationId,
          url: resolveTenantUrl(options.topology, org),
          migrations: options.migrationsFor?.(org),
          connectTimeoutMs: options.connectTimeoutMs,
          onWait: () =>
            options.logger?.info('tenant_migration_waiting', {
              organizationId: org.organizationId,
              message: 'another process is migrating this tenant',
            }),
        });
        const reactivated =
          org.state === 'unavailable' ? await organizations.markActive(org.organizationId, 'migration_failed') : false;
        const outcome = {
          ...base,
          outcome: applied.length > 0 ? ('migrated' as const) : ('up_to_date' as const),
          applied,
          reason: null,
          state: reactivated || org.state === 'active' ? ('active' as const) : org.state,
          durationMs: Date.now() - started,
        };
        options.logger?.info('tenant_migrated', {
          organizationId: org.organizationId,
          server: org.tenantServer,
          applied,
          reactivated,
          durationMs: outcome.durationMs,
        });
        return outcome;
      } catch (err) {
        const reason = `migration failed: ${describeTenantFailure(err)}`;
        // Why guarded: the control plane may be what failed; the outcome is still reported.
        const marked = await organizations
          .markUnavailable(org.organizationId, 'migration_failed', reason)
          .catch(() => false);
        options.logger?.error('tenant_migration_failed', {
          organizationId: org.organizationId,
          server: org.tenantServer,
          database: org.tenantDatabase,
          reason,
          markedUnavailable: marked,
        });
        return {
          ...base,
          outcome: 'failed',
          applied: [],
          reason,
          state: marked ? 'unavailable' : org.state,
          durationMs: Date.now() - started,
        };
      }
    },
  );
  return {
    outcomes,
    migrated: outcomes.filter((o) => o.outcome === 'migrated').length,
    failed: outcomes.filter((o) => o.outcome === 'failed').length,
  };
}
