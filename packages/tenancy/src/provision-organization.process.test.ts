import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyRepository, SessionRepository, UserRepository } from '@service/auth';
import { deprovisionOrganization } from './deprovision-organization.ts';
import { listOrganizations } from './list-organizations.ts';
import { OrganizationRepository } from './organization-repository.ts';
import { provisionOrganization, type ProvisionOrganizationDeps } from './provision-organization.ts';
import { TenancyError } from './tenancy-error.ts';
import { TenantRouter } from './tenant-router.ts';
import { parseTenantServers } from './tenant-servers.ts';
import { tenantTopology, type TenantTopology } from './tenant-topology.ts';
import {
  createTestControlPlane,
  databaseExists,
  dropDatabases,
  loadTestLibrary,
  startSecondServer,
  type TestControlPlane,
} from './test-tenancy-setup.ts';

let cp: TestControlPlane;
let second: Awaited<ReturnType<typeof startSecondServer>>;
let topology: TenantTopology;
let deps: ProvisionOrganizationDeps;
let router: TenantRouter;

beforeAll(async () => {
  [cp, second] = await Promise.all([createTestControlPlane(), startSecondServer()]);
  topology = tenantTopology(parseTenantServers(`eu2=${second.server.baseUrl}`), cp.configuredTenant);
  deps = {
    controlPlane: cp.controlPlane,
    topology,
    loadLibrary: loadTestLibrary,
    createAdministrator: async ({ organizationId, email }) => {
      await new UserRepository(cp.controlPlane).create({
        organizationId,
        email,
        name: 'Administrator',
        role: 'admin',
        password: null,
      });
    },
  };
  router = new TenantRouter({
    edition: 'hosted',
    controlPlane: cp.controlPlane,
    configuredTenant: cp.configuredTenant,
    topology,
    settings: { lookupCacheMs: 0 },
  });
});

afterAll(async () => {
  await router?.close();
  const made = cp
    ? (await listOrganizations(cp.controlPlane)).filter(
        (o) => o.tenantServer === 'default' && o.tenantDatabase !== 'default',
      )
    : [];
  if (made.length > 0)
    await dropDatabases(
      cp.dbs.serverUrl,
      made.map((o) => o.tenantDatabase),
    );
  await cp?.close();
  await second?.stop();
});

async function serverOf(lease: { db: import('knex').Knex }): Promise<{ database: string; port: number }> {
  const { rows } = await lease.db.raw('select current_database() as database, inet_server_port() as port');
  return rows[0];
}

describe('provisioning organizations on two servers', () => {
  let acme: string;
  let globex: string;

  it('provisions one organization on each server: database, migrations, library, administrator, active', async () => {
    const a = await provisionOrganization(deps, {
      name: 'Acme',
      plan: 'business',
      server: 'default',
      adminEmail: 'admin@acme.test',
    });
    const g = await provisionOrganization(deps, {
      name: 'Globex',
      plan: 'enterprise',
      server: 'eu2',
      adminEmail: 'admin@globex.test',
    });
    acme = a.organization.organizationId;
    globex = g.organization.organizationId;
    for (const [result, server] of [
      [a, 'default'],
      [g, 'eu2'],
    ] as const) {
      expect(result.resumed).toBe(false);
      expect(result.stepsRun).toEqual([
        'database_created',
        'migrated',
        'library_loaded',
        'administrator_created',
        'completed',
      ]);
      expect(result.organization).toMatchObject({
        state: 'active',
        provisioningStep: 'completed',
        tenantServer: server,
        stateReason: null,
      });
      expect(result.organization.tenantDatabase).toBe(`tenant_${result.organization.organizationId.replace(/-/g, '')}`);
    }
    expect(await databaseExists(cp.dbs.serverUrl, a.organization.tenantDatabase)).toBe(true);
    expect(await databaseExists(second.server.baseUrl, a.organization.tenantDatabase)).toBe(false);
    expect(await databaseExists(second.server.baseUrl, g.organization.tenantDatabase)).toBe(true);
    expect(await databaseExists(cp.dbs.serverUrl, g.organization.tenantDatabase)).toBe(false);

    const admins = await cp.controlPlane('users').select('organization_id', 'email', 'role').orderBy('email');
    expect(admins).toEqual([
      { organization_id: acme, email: 'admin@acme.test', role: 'admin' },
      { organization_id: globex, email: 'admin@globex.test', role: 'admin' },
    ]);
    for (const id of [acme, globex]) {
      expect(await router.withTenant(id, async (db) => (await db('finding_templates').count({ n: '*' }))[0]!.n)).toBe(
        3,
      );
    }
  });

  it('routes each organization to its own database on its own server, never the other one', async () => {
    const a = await router.acquire(acme);
    const g = await router.acquire(globex);
    try {
      expect(await serverOf(a)).toEqual({
        database: `tenant_${acme.replace(/-/g, '')}`,
        port: new URL(cp.dbs.serverUrl).port ? Number(new URL(cp.dbs.serverUrl).port) : 5432,
      });
      expect(await serverOf(g)).toEqual({ database: `tenant_${globex.replace(/-/g, '')}`, port: second.server.port });
      await a.db('clients').insert({ name: 'Acme client' });
      await g.db('clients').insert({ name: 'Globex client' });
      expect((await a.db('clients').select('name')).map((r) => r.name)).toEqual(['Acme client']);
      expect((await g.db('clients').select('name')).map((r) => r.name)).toEqual(['Globex client']);
      // And the configured tenant database (self-hosted's) holds neither.
      expect(await cp.configuredTenant('clients').count({ n: '*' })).toEqual([{ n: 0 }]);
    } finally {
      a.release();
      g.release();
    }
  });

  it('resumes after a failed step without duplicates', async () => {
    let calls = 0;
    const flaky: ProvisionOrganizationDeps = {
      ...deps,
      loadLibrary: async (tenant) => {
        calls += 1;
        await loadTestLibrary(tenant);
        // Why after the inserts: the transaction must roll them back, or the retry would duplicate.
        if (calls === 1) throw new Error('library source unreachable');
      },
    };
    const failed = await provisionOrganization(flaky, {
      name: 'Initech',
      plan: 'team',
      server: 'eu2',
      adminEmail: 'admin@initech.test',
    }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(TenancyError);
    expect((failed as TenancyError).code).toBe('provisioning_failed');
    expect((failed as Error).message).toMatch(
      /library loaded step failed: library source unreachable\. Fix the cause and run the same command again/,
    );
    const [stuck] = (await listOrganizations(cp.controlPlane)).filter((o) => o.name === 'Initech');
    expect(stuck).toMatchObject({
      state: 'provisioning',
      provisioningStep: 'migrated',
      stateCause: 'provisioning_failed',
    });
    expect(stuck!.stateReason).toMatch(/library loaded step failed/);
    await expect(router.acquire(stuck!.organizationId)).rejects.toMatchObject({ code: 'tenant_unavailable' });

    const resumed = await provisionOrganization(flaky, {
      name: 'Initech',
      plan: 'team',
      server: 'eu2',
      adminEmail: 'admin@initech.test',
    });
    expect(resumed.resumed).toBe(true);
    expect(resumed.stepsRun).toEqual(['library_loaded', 'administrator_created', 'completed']);
    expect(resumed.organization).toMatchObject({
      organizationId: stuck!.organizationId,
      state: 'active',
      stateReason: null,
      stateCause: null,
    });
    expect((await listOrganizations(cp.controlPlane)).filter((o) => o.name === 'Initech')).toHaveLength(1);
    expect(
      await router.withTenant(
        stuck!.organizationId,
        async (db) => (await db('finding_templates').count({ n: '*' }))[0]!.n,
      ),
    ).toBe(3);
    expect(await cp.controlPlane('users').where({ organization_id: stuck!.organizationId }).count({ n: '*' })).toEqual([
      { n: 1 },
    ]);

    // A third run of the finished organization changes nothing.
    const again = await provisionOrganization(deps, {
      name: 'Initech',
      plan: 'team',
      server: 'eu2',
      adminEmail: 'admin@initech.test',
      organizationId: stuck!.organizationId,
    });
    expect(again.stepsRun).toEqual([]);
  });

  it('resumes after a failed migration and refuses an unknown server up front', async () => {
    const broken: ProvisionOrganizationDeps = {
      ...deps,
      migrations: {
        migrationSource: {
          getMigrations: async () => ['0001_broken'],
          getMigrationName: (m: string) => m,
          getMigration: async () => ({
            up: async (k) => void (await k.raw('select * from no_such_table')),
            down: async () => {},
          }),
        },
      },
    };
    await expect(
      provisionOrganization(broken, {
        name: 'Hooli',
        plan: 'business',
        server: 'default',
        adminEmail: 'admin@hooli.test',
      }),
    ).rejects.toThrow(/migrated step failed: .*no_such_table/);
    const done = await provisionOrganization(deps, {
      name: 'Hooli',
      plan: 'business',
      server: 'default',
      adminEmail: 'admin@hooli.test',
    });
    expect(done.stepsRun).toEqual(['migrated', 'library_loaded', 'administrator_created', 'completed']);
    // The broken source ran in its own rolled-back transaction: only the real migrations are recorded.
    const names = await router.withTenant(
      done.organization.organizationId,
      async (db) => (await db('knex_migrations').pluck('name')) as string[],
    );
    expect(names).not.toContain('0001_broken');

    const before = (await listOrganizations(cp.controlPlane)).length;
    await expect(
      provisionOrganization(deps, { name: 'Nowhere', plan: 'business', server: 'us9', adminEmail: 'a@nowhere.test' }),
    ).rejects.toThrow(/There is no tenant server "us9"; the configured ones are "default", "eu2"/);
    expect((await listOrganizations(cp.controlPlane)).length).toBe(before);
  });

  it('gives each organization its own slug and an administrator whose address another organization also has', async () => {
    expect((await new OrganizationRepository(cp.controlPlane).get(acme))?.slug).toBe('acme');
    const before = (await listOrganizations(cp.controlPlane)).length;
    // A slug another organization has, or one that is no slug, is refused before anything is recorded.
    await expect(
      provisionOrganization(deps, {
        name: 'Acme Two',
        slug: 'acme',
        plan: 'business',
        server: 'default',
        adminEmail: 'it@acme2.test',
      }),
    ).rejects.toMatchObject({ code: 'slug_taken' });
    await expect(
      provisionOrganization(deps, {
        name: 'Bad',
        slug: '-bad-',
        plan: 'business',
        server: 'default',
        adminEmail: 'a@b.test',
      }),
    ).rejects.toThrow(/"-bad-" is not a slug/);
    expect((await listOrganizations(cp.controlPlane)).length).toBe(before);

    // The same name as Acme: the derived slug gets part of the id. The address of Acme's
    // administrator becomes this organization's administrator too, without a word about Acme.
    const copy = await provisionOrganization(deps, {
      name: 'ACME',
      plan: 'business',
      server: 'default',
      adminEmail: 'admin@acme.test',
    });
    const id = copy.organization.organizationId;
    expect(copy.organization.slug).toBe(`acme-${id.replace(/-/g, '').slice(0, 8)}`);
    expect(copy.stepsRun).toContain('administrator_created');
    const holders = await cp.controlPlane('users').where({ email: 'admin@acme.test' }).orderBy('created_at');
    expect(holders.map((u) => u.organization_id)).toEqual([acme, id]);
  });

  it('deprovisions: retained, keys and sessions revoked, the data kept', async () => {
    const admin = (await cp.controlPlane('users').where({ organization_id: globex }).first())!;
    const keys = new ApiKeyRepository(cp.controlPlane);
    const { value } = await keys.create({
      organizationId: globex,
      userId: admin.id,
      name: 'ci',
      scope: 'read-write',
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    const sessions = new SessionRepository(cp.controlPlane);
    const { token } = await sessions.create(admin.id);
    expect(await keys.authenticate(value)).not.toBeNull();

    const result = await deprovisionOrganization(cp.controlPlane, globex, { reason: 'contract ended' });
    expect(result).toMatchObject({
      revokedKeys: 1,
      revokedSessions: 1,
      organization: { state: 'retained', stateReason: 'contract ended' },
    });
    expect(result.organization.retainedAt).toBeInstanceOf(Date);
    expect(await keys.authenticate(value)).toBeNull();
    expect(await sessions.resolve(token)).toBeNull();
    await expect(router.acquire(globex)).rejects.toMatchObject({ code: 'tenant_retained' });
    // Never dropped: the database and its rows are still there.
    const org = (await new OrganizationRepository(cp.controlPlane).get(globex))!;
    expect(await databaseExists(second.server.baseUrl, org.tenantDatabase)).toBe(true);
    const { default: knexFactory } = await import('knex');
    const direct = knexFactory({ client: 'pg', connection: `${second.server.baseUrl}/${org.tenantDatabase}` });
    try {
      expect((await direct('clients').pluck('name')) as string[]).toEqual(['Globex client']);
    } finally {
      await direct.destroy();
    }
    // Again: nothing more to revoke, still retained. The other organization is untouched.
    expect(await deprovisionOrganization(cp.controlPlane, globex)).toMatchObject({
      revokedKeys: 0,
      revokedSessions: 0,
      organization: { state: 'retained' },
    });
    expect(await router.withTenant(acme, async (db) => (await db('clients').pluck('name')) as string[])).toEqual([
      'Acme client',
    ]);
    await expect(
      deprovisionOrganization(cp.controlPlane, '00000000-0000-4000-8000-000000000000'),
    ).rejects.toMatchObject({ code: 'organization_not_found' });
  });

  it('keeps an organization an operator marked unavailable out of service until it is marked active', async () => {
    const organizations = new OrganizationRepository(cp.controlPlane);
    expect(await organizations.markUnavailable(acme, 'operator', 'moving to eu2')).toBe(true);
    await expect(router.acquire(acme)).rejects.toMatchObject({ code: 'tenant_unavailable', state: 'unavailable' });
    expect(await organizations.markActive(acme, 'migration_failed')).toBe(false);
    expect(await organizations.markActive(acme)).toBe(true);
    expect(await router.withTenant(acme, async () => 'ok')).toBe('ok');
  });
});
