import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { ensureDatabase } from '@service/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateAllTenants } from './migrate-all-tenants.ts';
import { OrganizationRepository } from './organization-repository.ts';
import { tenantDatabaseName } from './tenant-database-name.ts';
import { tenantMigrationConfig } from './tenant-migrations.ts';
import { TenantRouter } from './tenant-router.ts';
import { tenantTopology, type TenantTopology } from './tenant-topology.ts';
import { createTestControlPlane, dropDatabases, type TestControlPlane } from './test-tenancy-setup.ts';

let cp: TestControlPlane;
let topology: TenantTopology;
let organizations: OrganizationRepository;
const made: string[] = [];

async function organization(name: string, options: { createDatabase: boolean }): Promise<string> {
  const id = randomUUID();
  await organizations.insertProvisioning({
    id,
    name,
    plan: 'business',
    tenantServer: 'default',
    tenantDatabase: tenantDatabaseName(id),
  });
  if (options.createDatabase) await ensureDatabase(`${cp.dbs.serverUrl}/${tenantDatabaseName(id)}`);
  await organizations.completeProvisioning(id);
  made.push(id);
  return id;
}

let allMigrations: string[];

beforeAll(async () => {
  cp = await createTestControlPlane();
  topology = tenantTopology([], cp.configuredTenant);
  organizations = new OrganizationRepository(cp.controlPlane);
  allMigrations = (await tenantMigrationConfig().migrationSource!.getMigrations([])).map((m) =>
    tenantMigrationConfig().migrationSource!.getMigrationName(m),
  );
  await cp.controlPlane('organizations').insert({ name: 'Bootstrap' }); // default/default, migrated by the test setup
});

afterAll(async () => {
  if (cp) await dropDatabases(cp.dbs.serverUrl, made.map(tenantDatabaseName));
  await cp?.close();
});

function byName(result: Awaited<ReturnType<typeof migrateAllTenants>>, name: string) {
  return result.outcomes.find((o) => o.name === name)!;
}

describe('migrateAllTenants', () => {
  let broken: string;

  it(
    'migrates every tenant, marks the one that fails unavailable with the reason, and ' + 'goes on with the others',
    async () => {
      await organization('Alpha', { createDatabase: true });
      await organization('Beta', { createDatabase: true });
      broken = await organization('Dropped', { createDatabase: false });
      const moving = await organization('Moving', { createDatabase: true });
      await organizations.markUnavailable(moving, 'operator', 'moving to eu2');
      const logged: string[] = [];
      const result = await migrateAllTenants({
        controlPlane: cp.controlPlane,
        topology,
        concurrency: 2,
        logger: { debug() {}, info: (e) => logged.push(e), warn() {}, error: (e) => logged.push(e) },
      });

      expect(byName(result, 'Alpha')).toMatchObject({
        outcome: 'migrated',
        applied: allMigrations,
        state: 'active',
        reason: null,
      });
      expect(byName(result, 'Beta')).toMatchObject({ outcome: 'migrated', applied: allMigrations, state: 'active' });
      expect(byName(result, 'Bootstrap')).toMatchObject({ outcome: 'up_to_date', applied: [], state: 'active' });
      expect(byName(result, 'Dropped')).toMatchObject({
        outcome: 'failed',
        state: 'unavailable',
        reason: 'migration failed: database does not exist',
      });
      expect(byName(result, 'Moving')).toMatchObject({
        outcome: 'skipped',
        state: 'unavailable',
        reason: 'moving to eu2',
      });
      expect(result).toMatchObject({ migrated: 2, failed: 1 });
      expect(logged.filter((e) => e === 'tenant_migration_failed')).toHaveLength(1);
      expect(await organizations.get(broken)).toMatchObject({
        state: 'unavailable',
        stateCause: 'migration_failed',
        stateReason: 'migration failed: database does not exist',
      });
      expect(await organizations.get(moving)).toMatchObject({ state: 'unavailable', stateCause: 'operator' });

      const router = new TenantRouter({
        edition: 'hosted',
        controlPlane: cp.controlPlane,
        configuredTenant: cp.configuredTenant,
        topology,
      });
      try {
        await expect(router.acquire(broken)).rejects.toMatchObject({ code: 'tenant_unavailable' });
        const alpha = byName(result, 'Alpha').organizationId;
        expect(await router.withTenant(alpha, async (db) => (await db('clients').count({ n: '*' }))[0]!.n)).toBe(0);
      } finally {
        await router.close();
      }
    },
  );

  it('puts a tenant back in service once its migration succeeds', async () => {
    await ensureDatabase(`${cp.dbs.serverUrl}/${tenantDatabaseName(broken)}`);
    const result = await migrateAllTenants({ controlPlane: cp.controlPlane, topology, concurrency: 3 });
    expect(byName(result, 'Dropped')).toMatchObject({ outcome: 'migrated', state: 'active', applied: allMigrations });
    expect(byName(result, 'Alpha')).toMatchObject({ outcome: 'up_to_date' });
    expect(await organizations.get(broken)).toMatchObject({ state: 'active', stateCause: null, stateReason: null });
  });

  it('a bad migration in one tenant leaves it unavailable and its database as it was', async () => {
    const victim = await organization('Victim', { createDatabase: true });
    const bad: Knex.MigratorConfig = {
      migrationSource: {
        getMigrations: async () => ['0001_ok', '0002_bad'],
        getMigrationName: (m: string) => m,
        getMigration: async (m: string) => ({
          up: async (k: Knex) =>
            void (await k.raw(
              m === '0001_ok' ? 'create table half_done (id int)' : 'alter table no_such_table add column x int',
            )),
          down: async () => {},
        }),
      },
    };
    const result = await migrateAllTenants({
      controlPlane: cp.controlPlane,
      topology,
      concurrency: 2,
      migrationsFor: (org) => (org.organizationId === victim ? bad : undefined),
    });
    expect(byName(result, 'Victim')).toMatchObject({ outcome: 'failed', state: 'unavailable' });
    expect(byName(result, 'Victim').reason).toMatch(/^migration failed: 42P01 .*no_such_table/);
    expect(result.outcomes.filter((o) => o.name !== 'Victim' && o.outcome === 'failed')).toEqual([]);
    const router = new TenantRouter({
      edition: 'hosted',
      controlPlane: cp.controlPlane,
      configuredTenant: cp.configuredTenant,
      topology,
    });
    await organizations.markActive(victim, 'migration_failed');
    try {
      // The batch ran in one transaction: the first migration's table was rolled back with the second.
      expect(await router.withTenant(victim, async (db) => db.schema.hasTable('half_done'))).toBe(false);
    } finally {
      await router.close();
    }
  });

  it('two processes starting at once migrate each tenant once and neither fails', async () => {
    const fresh = [
      await organization('Fresh 1', { createDatabase: true }),
      await organization('Fresh 2', { createDatabase: true }),
      await organization('Fresh 3', { createDatabase: true }),
    ];
    const [one, two] = await Promise.all([
      migrateAllTenants({ controlPlane: cp.controlPlane, topology, concurrency: 2 }),
      migrateAllTenants({ controlPlane: cp.controlPlane, topology, concurrency: 2 }),
    ]);
    expect(one.failed + two.failed).toBe(0);
    for (const id of fresh) {
      const outcomes = [one, two].map((r) => r.outcomes.find((o) => o.organizationId === id)!.outcome).sort();
      expect(outcomes).toEqual(['migrated', 'up_to_date']);
    }
  });
});
