import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex, ensureDatabase, type DatabaseTimeouts } from '@service/db';
import { waitUntil } from '@service/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrganizationRepository } from './organization-repository.ts';
import { TenancyError } from './tenancy-error.ts';
import { tenantDatabaseName } from './tenant-database-name.ts';
import { TenantRouter, type TenantRouterOptions } from './tenant-router.ts';
import { tenantTopology, type TenantTopology } from './tenant-topology.ts';
import { createTestControlPlane, dropDatabases, type TestControlPlane } from './test-tenancy-setup.ts';

let cp: TestControlPlane;
let topology: TenantTopology;
const orgs: string[] = [];
const routers: TenantRouter[] = [];

/** An active organization with an (empty) tenant database on the test server. */
async function activeOrganization(name: string, server = 'default'): Promise<string> {
  const id = randomUUID();
  const organizations = new OrganizationRepository(cp.controlPlane);
  await organizations.insertProvisioning({
    id,
    name,
    plan: 'business',
    tenantServer: server,
    tenantDatabase: tenantDatabaseName(id),
  });
  if (server === 'default') await ensureDatabase(`${cp.dbs.serverUrl}/${tenantDatabaseName(id)}`);
  await organizations.completeProvisioning(id);
  orgs.push(id);
  return id;
}

function makeRouter(options: Partial<TenantRouterOptions> & { opened?: string[] } = {}): TenantRouter {
  const router = new TenantRouter({
    edition: 'hosted',
    controlPlane: cp.controlPlane,
    configuredTenant: cp.configuredTenant,
    topology,
    openPool: (url: string, max: number, name: string, timeouts: DatabaseTimeouts) => {
      options.opened?.push(new URL(url).pathname.slice(1));
      return createKnex(url, max, name, timeouts);
    },
    ...options,
  });
  routers.push(router);
  return router;
}

async function databaseOf(db: Knex): Promise<string> {
  const { rows } = await db.raw('select current_database() as name');
  return rows[0].name;
}

let a: string;
let b: string;
let c: string;

beforeAll(async () => {
  cp = await createTestControlPlane();
  topology = tenantTopology([], cp.configuredTenant);
  a = await activeOrganization('A');
  b = await activeOrganization('B');
  c = await activeOrganization('C');
});

afterAll(async () => {
  await Promise.all(routers.map((r) => r.close()));
  if (cp) await dropDatabases(cp.dbs.serverUrl, orgs.map(tenantDatabaseName));
  await cp?.close();
});

describe('TenantRouter', () => {
  it('self-hosted: always the configured tenant database, without asking the control plane', async () => {
    const router = new TenantRouter({
      edition: 'self-hosted',
      controlPlane: cp.controlPlane,
      configuredTenant: cp.configuredTenant,
    });
    routers.push(router);
    const lease = await router.acquire('any organization');
    expect(lease.db).toBe(cp.configuredTenant);
    lease.release();
    expect(router.stats()).toMatchObject({ edition: 'self-hosted', openPools: 0, poolsOpened: 0 });
  });

  it(
    'hosted: each organization gets its own database; the bootstrap organization ' + 'keeps the configured one',
    async () => {
      const opened: string[] = [];
      const router = makeRouter({ opened });
      for (const id of [a, b, c]) expect(await router.withTenant(id, databaseOf)).toBe(tenantDatabaseName(id));
      const [bootstrap] = await cp.controlPlane('organizations').insert({ name: 'Bootstrap' }).returning('id');
      orgs.push(bootstrap.id);
      const lease = await router.acquire(bootstrap.id);
      expect(lease.db).toBe(cp.configuredTenant);
      lease.release();
      expect(opened.sort()).toEqual([a, b, c].map(tenantDatabaseName).sort());
      // A second use of a cached organization reuses its pool.
      await router.withTenant(a, databaseOf);
      expect(router.stats()).toMatchObject({ openPools: 3, poolsOpened: 3, leases: 0 });
    },
  );

  it('refuses organizations that are not active, unknown ones and unknown servers with typed errors', async () => {
    const router = makeRouter({ settings: { lookupCacheMs: 0 } });
    const organizations = new OrganizationRepository(cp.controlPlane);
    const pending = randomUUID();
    await organizations.insertProvisioning({
      id: pending,
      name: 'Pending',
      plan: 'business',
      tenantServer: 'default',
      tenantDatabase: tenantDatabaseName(pending),
    });
    orgs.push(pending);
    await expect(router.acquire(pending)).rejects.toMatchObject({ code: 'tenant_unavailable', state: 'provisioning' });
    await expect(router.acquire(randomUUID())).rejects.toMatchObject({ code: 'organization_not_found' });
    const elsewhere = await activeOrganization('Elsewhere', 'eu9');
    const err = await router.acquire(elsewhere).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TenancyError);
    expect(err).toMatchObject({
      code: 'unknown_tenant_server',
      message: expect.stringMatching(/"eu9" is not configured/),
    });
    expect(router.stats().openPools).toBe(0);
  });

  it('concurrent first uses of an organization open one pool', async () => {
    const opened: string[] = [];
    const router = makeRouter({ opened, settings: { lookupCacheMs: 0 } });
    const names = await Promise.all(Array.from({ length: 25 }, () => router.withTenant(b, databaseOf)));
    expect(new Set(names)).toEqual(new Set([tenantDatabaseName(b)]));
    expect(opened).toEqual([tenantDatabaseName(b)]);
    expect(router.stats()).toMatchObject({ openPools: 1, poolsOpened: 1, leases: 0 });
  });

  it('caps open pools: the least recently used idle pool is closed, a held pool never', async () => {
    const opened: string[] = [];
    const router = makeRouter({
      opened,
      settings: { maxOpenPools: 2 },
      // Why 10 s: it also bounds opening a connection, which a busy machine can take seconds for;
      // the organization refused for capacity below waits it out.
      timeouts: { acquireTimeoutMs: 10_000, statementTimeoutMs: 15_000 },
    });
    await router.withTenant(a, databaseOf);
    await router.withTenant(b, databaseOf);
    await router.withTenant(a, databaseOf); // a is now the most recently used
    await router.withTenant(c, databaseOf); // closes b, the least recently used
    expect(router.stats()).toMatchObject({ openPools: 2, poolsOpened: 3, poolsClosed: 1 });
    await router.withTenant(a, databaseOf);
    expect(router.stats().poolsOpened).toBe(3);

    // Both open pools held: a third organization waits, and gets TenantCapacityError when none is released in time.
    const heldA = await router.acquire(a);
    const heldC = await router.acquire(c);
    await expect(router.acquire(b)).rejects.toMatchObject({ code: 'tenant_capacity' });
    // Held pools still work, and closing idle pools leaves them alone.
    expect(await router.closeIdle(Date.now() + 3_600_000)).toBe(0);
    expect(await databaseOf(heldA.db)).toBe(tenantDatabaseName(a));

    // Released while b waits: b gets the released slot, the other held pool stays open.
    const waiting = router.acquire(b);
    await waitUntil('b waits for a pool', () => router.stats().waiting === 1);
    heldC.release();
    const leaseB = await waiting;
    expect(await databaseOf(leaseB.db)).toBe(tenantDatabaseName(b));
    expect(await databaseOf(heldA.db)).toBe(tenantDatabaseName(a));
    expect(router.stats()).toMatchObject({ openPools: 2, heldPools: 2, leases: 2 });
    heldA.release();
    heldA.release(); // releasing twice is harmless
    leaseB.release();
    expect(router.stats()).toMatchObject({ heldPools: 0, leases: 0 });
  }, 60_000);

  it('closes pools that stay idle, and caps the connections of each pool', async () => {
    // Why its own application name: pools of the other tests' routers are open on the same database.
    const router = makeRouter({
      settings: { poolIdleMs: 50, poolMaxConnections: 2 },
      openPool: (url, max, _name, timeouts) => createKnex(url, max, 'test:capped', timeouts),
    });
    const lease = await router.acquire(c);
    await Promise.all(Array.from({ length: 6 }, () => lease.db.raw('select pg_sleep(0.05)')));
    const { rows } = await cp.controlPlane.raw(
      "select count(*)::int as n from pg_stat_activity where datname = ? and application_name = 'test:capped'",
      [tenantDatabaseName(c)],
    );
    expect(rows[0].n).toBeLessThanOrEqual(2);
    expect(router.stats().connections.open).toBeLessThanOrEqual(2);
    expect(router.stats().connections.open).toBeGreaterThan(0);
    lease.release();
    await waitUntil('the idle pool is closed', () => router.stats().openPools === 0, { timeoutMs: 5_000 });
    expect(router.stats()).toMatchObject({ openPools: 0, poolsClosed: 1, connections: { open: 0 } });
    // The next use opens it again.
    expect(await router.withTenant(c, databaseOf)).toBe(tenantDatabaseName(c));
  });

  it('sees a state change after the lookup cache expires, or at once after invalidate', async () => {
    const router = makeRouter({ settings: { lookupCacheMs: 60_000 } });
    await router.withTenant(a, databaseOf);
    const organizations = new OrganizationRepository(cp.controlPlane);
    await organizations.markUnavailable(a, 'operator', 'maintenance');
    try {
      expect(await router.withTenant(a, databaseOf)).toBe(tenantDatabaseName(a)); // still cached
      router.invalidate(a);
      await expect(router.acquire(a)).rejects.toMatchObject({
        code: 'tenant_unavailable',
        message: expect.stringContaining('maintenance'),
      });
    } finally {
      await organizations.markActive(a, 'operator');
    }
  });

  it('after close, refuses new leases and has closed its pools', async () => {
    const router = makeRouter();
    await router.withTenant(a, databaseOf);
    await router.close();
    expect(router.stats().openPools).toBe(0);
    await expect(router.acquire(a)).rejects.toMatchObject({ code: 'router_closed' });
  });
});
