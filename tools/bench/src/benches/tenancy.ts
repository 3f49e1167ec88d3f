// Tenancy benchmark (issue "The hosted workspace for real"). Embedded PostgreSQL in a temporary
// directory, control plane migrated, then:
//  1. time to provision an organization: create its database, run the tenant migrations, load a
//     library stand-in (500 finding templates in one transaction), create its administrator;
//  2. cost of tenant routing per lookup: TenantRouter.acquire + release for a cached organization
//     (hosted) against the self-hosted path, and an uncached lookup (one control-plane query);
//  3. memory per open tenant pool: N organizations, a pool each holding one open connection,
//     client RSS and heap delta / N, and the server-side memory of one idle backend (PSS).
// Figures go into docs/scaling.md. BENCH_TENANT_POOLS (default 100) sets N.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Knex } from 'knex';
import {
  createKnex,
  DATABASE_NAMES,
  ensureDatabase,
  migrateDatabases,
  silentLogger,
  startEmbeddedServer,
  type DatabaseName,
  type Logger,
} from '@service/db';
import {
  migrateAllTenants,
  OrganizationRepository,
  provisionOrganization,
  tenantDatabaseName,
  TenantRouter,
  tenantTopology,
} from '@service/tenancy';
import { median } from '../support/median.ts';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

function settle(): void {
  for (let i = 0; i < 3; i++) gc();
}

const MB = 1024 * 1024;

/** Proportional set size of a process in bytes (shared pages divided among their users), or null when unreadable. */
function pssOf(pid: number): number | null {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

async function libraryStandIn(tenant: Knex): Promise<void> {
  const rows = Array.from({ length: 500 }, (_, i) => ({
    title: `Library finding ${i}`,
    severity: ['critical', 'high', 'medium', 'low', 'info'][i % 5],
    description: 'A description of the weakness, its cause and where it is usually found. '.repeat(8),
    impact: 'What an attacker gains. '.repeat(6),
    remediation: 'How to fix it, step by step. '.repeat(6),
    global_key: `bench-${i}`,
    global_revision: 1,
  }));
  for (let i = 0; i < rows.length; i += 100)
    await tenant('finding_templates')
      .insert(rows.slice(i, i + 100))
      .onConflict('global_key')
      .merge();
}

export default async function run(): Promise<void> {
  const poolCount = Number(process.env.BENCH_TENANT_POOLS ?? 100);
  const dir = mkdtempSync(path.join(tmpdir(), 'service-bench-tenancy-'));
  const pg = await startEmbeddedServer({
    dataDir: dir,
    logger: silentLogger,
    lock: false,
    settings: { max_connections: String(poolCount + 60), fsync: 'off', synchronous_commit: 'off' },
  });
  const urls = {
    controlPlane: `${pg.baseUrl}/bench_cp`,
    shared: `${pg.baseUrl}/bench_shared`,
    tenant: `${pg.baseUrl}/bench_tenant`,
  };
  for (const n of DATABASE_NAMES) await ensureDatabase(urls[n]);
  const dbs = Object.fromEntries(DATABASE_NAMES.map((n) => [n, createKnex(urls[n], 10)])) as Record<DatabaseName, Knex>;
  const routers: TenantRouter[] = [];
  try {
    await migrateDatabases(dbs);
    const topology = tenantTopology([], dbs.tenant);
    const organizations = new OrganizationRepository(dbs.controlPlane);

    // 1. Provisioning.
    const steps: Record<string, number[]> = {};
    const logger: Logger = {
      debug() {},
      info(event, fields) {
        if (event !== 'organization_provisioning_step' || !fields) return;
        const step = String(fields.step);
        const durations = steps[step] ?? [];
        durations.push(Number(fields.durationMs));
        steps[step] = durations;
      },
      warn() {},
      error() {},
    };
    const totals: number[] = [];
    let firstOrg = '';
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const { organization } = await provisionOrganization(
        {
          controlPlane: dbs.controlPlane,
          topology,
          logger,
          loadLibrary: libraryStandIn,
          createAdministrator: async ({ organizationId, email }) =>
            void (await dbs
              .controlPlane('users')
              .insert({ organization_id: organizationId, email, name: 'Administrator', role: 'admin' })),
        },
        { name: `Bench ${i}`, plan: 'business', server: 'default', adminEmail: `admin${i}@bench.test` },
      );
      totals.push(performance.now() - started);
      firstOrg ||= organization.organizationId;
    }
    console.log(
      `provision an organization (create database + ` +
        `${(await dbs.tenant('knex_migrations').count({ n: '*' }))[0]!.n} tenant ` +
        `migrations + 500-template library stand-in + administrator), 5 runs:`,
    );
    console.log(
      `  median ${median(totals).toFixed(0)} ms, min ${Math.min(...totals).toFixed(0)} ` +
        `ms, max ${Math.max(...totals).toFixed(0)} ms`,
    );
    console.log(
      `  per step (median ms): ${Object.entries(steps)
        .map(([s, xs]) => `${s} ${median(xs)}`)
        .join(', ')}`,
    );
    const first = (await organizations.get(firstOrg))!;
    const { rows: sizes } = await dbs.controlPlane.raw('select pg_database_size(?) as bytes', [first.tenantDatabase]);
    await ensureDatabase(`${pg.baseUrl}/bench_empty`);
    const { rows: empty } = await dbs.controlPlane.raw("select pg_database_size('bench_empty') as bytes");
    console.log(
      `  disk of one provisioned tenant database (schema + stand-in library): ` +
        `${(Number(sizes[0].bytes) / MB).toFixed(1)} MiB; an empty database: ` +
        `${(Number(empty[0].bytes) / MB).toFixed(1)} MiB`,
    );

    // Start-up with every tenant already migrated: what each start pays per tenant.
    const upToDate: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const result = await migrateAllTenants({ controlPlane: dbs.controlPlane, topology, concurrency: 4 });
      upToDate.push((performance.now() - started) / result.outcomes.length);
    }
    console.log(
      `migrations on start, every tenant up to date (6 tenants, concurrency 4): ` +
        `${median(upToDate).toFixed(1)} ms per tenant (connect, lock, check)`,
    );

    // 2. Routing cost per lookup.
    const iterations = 200_000;
    const selfHosted = new TenantRouter({
      edition: 'self-hosted',
      controlPlane: dbs.controlPlane,
      configuredTenant: dbs.tenant,
    });
    const hosted = new TenantRouter({
      edition: 'hosted',
      controlPlane: dbs.controlPlane,
      configuredTenant: dbs.tenant,
      topology,
      settings: { lookupCacheMs: 3_600_000 },
    });
    const uncached = new TenantRouter({
      edition: 'hosted',
      controlPlane: dbs.controlPlane,
      configuredTenant: dbs.tenant,
      topology,
      settings: { lookupCacheMs: 0 },
    });
    routers.push(selfHosted, hosted, uncached);
    const perLookup = async (router: TenantRouter, n: number): Promise<number> => {
      for (let i = 0; i < Math.min(n, 5_000); i++) (await router.acquire(firstOrg)).release(); // warm up
      const started = process.hrtime.bigint();
      for (let i = 0; i < n; i++) (await router.acquire(firstOrg)).release();
      return Number(process.hrtime.bigint() - started) / n;
    };
    const selfNs = median([
      await perLookup(selfHosted, iterations),
      await perLookup(selfHosted, iterations),
      await perLookup(selfHosted, iterations),
    ]);
    const hostedNs = median([
      await perLookup(hosted, iterations),
      await perLookup(hosted, iterations),
      await perLookup(hosted, iterations),
    ]);
    const uncachedNs = await perLookup(uncached, 2_000);
    console.log('tenant routing per lookup (acquire + release, one caller):');
    console.log(
      `  self-hosted ${selfNs.toFixed(0)} ns, hosted cached organization ` +
        `${hostedNs.toFixed(0)} ns (+${(hostedNs - selfNs).toFixed(0)} ns), hosted ` +
        `uncached (control-plane query) ${(uncachedNs / 1000).toFixed(0)} µs`,
    );

    // 3. Memory per open tenant pool.
    const ids: string[] = [];
    for (let i = 0; i < poolCount; i++) {
      const id = randomUUID();
      await ensureDatabase(`${pg.baseUrl}/${tenantDatabaseName(id)}`);
      await organizations.insertProvisioning({
        id,
        name: `Pool ${i}`,
        plan: 'business',
        tenantServer: 'default',
        tenantDatabase: tenantDatabaseName(id),
      });
      await organizations.completeProvisioning(id);
      ids.push(id);
    }
    const router = new TenantRouter({
      edition: 'hosted',
      controlPlane: dbs.controlPlane,
      configuredTenant: dbs.tenant,
      topology,
      settings: { maxOpenPools: poolCount, lookupCacheMs: 3_600_000, poolIdleMs: 3_600_000 },
    });
    routers.push(router);
    // Warm the code paths (pg, knex, tarn) on one pool first, so the figure is per pool, not first-use.
    await router.withTenant(ids[0]!, (db) => db.raw('select 1'));
    settle();
    const before = process.memoryUsage();
    for (const id of ids) await router.withTenant(id, (db) => db.raw('select 1'));
    settle();
    const after = process.memoryUsage();
    const stats = router.stats();
    const opened = stats.openPools - 1;
    console.log(`memory per open tenant pool (${opened} pools, ${stats.connections.open} connections open):`);
    console.log(
      `  client RSS ${((after.rss - before.rss) / opened / 1024).toFixed(0)} KiB/pool, ` +
        `JS heap ${((after.heapUsed - before.heapUsed) / opened / 1024).toFixed(0)} ` +
        `KiB/pool, external ` +
        `${((after.external - before.external) / opened / 1024).toFixed(0)} KiB/pool`,
    );
    const { rows } = await dbs.controlPlane.raw(
      "select pid from pg_stat_activity where application_name like 'service:tenant:%'",
    );
    const pss = (rows as Array<{ pid: number }>).map((r) => pssOf(r.pid)).filter((x): x is number => x !== null);
    if (pss.length > 0)
      console.log(
        `  server: ${pss.length} idle backends, PSS median ` +
          `${(median(pss) / MB).toFixed(1)} MiB each (the server-side cost of one pooled ` +
          `connection)`,
      );
    else console.log('  server: backend memory not readable here (/proc/<pid>/smaps_rollup)');
    console.log(`  after ${poolCount} pools: client RSS ${(after.rss / MB).toFixed(0)} MiB in all`);
  } finally {
    await Promise.all(routers.map((r) => r.close()));
    await Promise.all(DATABASE_NAMES.map((n) => dbs[n].destroy()));
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
