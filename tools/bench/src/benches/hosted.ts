// Hosted edition benchmark (issue "The hosted workspace for real"): real service processes
// (`apps/api/src/main.ts`) on one embedded PostgreSQL, loaded with autocannon from another process.
//  1. the same workspace (20 clients, 1,000 reports, 10,000 findings) served by a self-hosted
//     process and, as a provisioned organization in its own tenant database, by a hosted process:
//     one-row GET one request at a time (the end-to-end cost of tenant routing), and a findings
//     list with 16 connections;
//  2. the findings list served by one hosted process and by two hosted processes sharing the
//     rate-limit store in PostgreSQL (16 connections in all), requests/s and p99.
// Figures go into docs/scaling.md. BENCH_SECONDS (default 10) sets each load's duration.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { ApiKeyRepository, generateLicenseKeyPair, parseSigningKey, signLicense, UserRepository } from '@service/auth';
import {
  createKnex,
  DATABASE_NAMES,
  ensureDatabase,
  migrateDatabases,
  silentLogger,
  startEmbeddedServer,
  type DatabaseName,
} from '@service/db';
import { provisionOrganization, tenantTopology } from '@service/tenancy';
import { formatLoad, load, sequential, type LoadResult } from '../support/load.ts';
import { seedWorkspace } from '../support/seed-workspace.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

interface ServiceProcess {
  url: string;
  stop(): Promise<void>;
}

/** Starts `npm start` as an operator would (its log is read until it listens, then discarded). */
async function startProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let listening = false;
  const collect = (d: Buffer) => {
    if (!listening) out += d.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const m = /"event":"listening","port":(\d+)/.exec(out);
    if (m) {
      listening = true;
      return {
        url: `http://127.0.0.1:${m[1]}`,
        stop: () =>
          new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      };
    }
    if (child.exitCode !== null) throw new Error(`the service exited: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`the service did not start: ${out}`);
}

async function keyFor(controlPlane: Knex, organizationId: string, tenant: Knex): Promise<string> {
  const user = await new UserRepository(controlPlane).create({
    organizationId,
    email: `bench-${organizationId.slice(0, 8)}@example.com`,
    name: 'Bench',
    role: 'admin',
    password: 'bench-password-123',
  });
  const { value } = await new ApiKeyRepository(controlPlane).create({
    organizationId,
    userId: user.id,
    name: 'bench',
    scope: 'read-write',
    expiresAt: new Date(Date.now() + 86_400_000),
    clientIds: (await tenant('clients').pluck('id')) as string[],
  });
  return value;
}

export default async function run(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const dir = mkdtempSync(path.join(tmpdir(), 'service-bench-hosted-'));
  const pgDir = mkdtempSync(path.join(tmpdir(), 'service-bench-hosted-pg-'));
  const pg = await startEmbeddedServer({
    dataDir: pgDir,
    logger: silentLogger,
    lock: false,
    settings: { max_connections: '300', fsync: 'off', synchronous_commit: 'off' },
  });
  const urls = {
    controlPlane: `${pg.baseUrl}/bench_cp`,
    shared: `${pg.baseUrl}/bench_shared`,
    tenant: `${pg.baseUrl}/bench_tenant`,
  };
  for (const n of DATABASE_NAMES) await ensureDatabase(urls[n]);
  const dbs = Object.fromEntries(DATABASE_NAMES.map((n) => [n, createKnex(urls[n], 5)])) as Record<DatabaseName, Knex>;
  const processes: ServiceProcess[] = [];
  let betaTenant: Knex | null = null;
  try {
    // A licence for the self-hosted process (a database URL is set, so no evaluation licence).
    const licenseKey = generateLicenseKeyPair();
    const licenseFile = path.join(dir, 'bench.license');
    writeFileSync(
      licenseFile,
      signLicense(
        {
          id: '11111111-2222-4333-8444-555555555555',
          holder: 'Bench',
          edition: 'self-hosted',
          features: ['api'],
          seats: 5,
          issuedAt: '2026-01-01T00:00:00.000Z',
          expiresAt: '2099-01-01T00:00:00.000Z',
        },
        parseSigningKey(licenseKey.privateKeyPem),
      ),
    );
    const common = {
      CONTROL_PLANE_DATABASE_URL: urls.controlPlane,
      SHARED_DATABASE_URL: urls.shared,
      TENANT_DATABASE_URL: urls.tenant,
      SERVICE_ADMIN_EMAIL: 'owner@example.com',
      SERVICE_ADMIN_PASSWORD: 'owner-password-123',
      RATE_LIMIT_PER_IP: '10000000',
      RATE_LIMIT_PER_KEY: '10000000',
      DATA_DIR: path.join(dir, 'data'),
    };
    const selfHostedEnv = { ...common, LICENSE_FILE: licenseFile, LICENSE_TRUSTED_KEYS: licenseKey.publicKeyBase64 };
    // Why memory first: the comparison with self-hosted is about tenant routing; section 2 shares
    // the rate-limit counters through PostgreSQL as several processes must.
    const hostedEnv = { ...common, SERVICE_EDITION: 'hosted' };
    const sharedEnv = { ...hostedEnv, RATE_LIMIT_STORE: 'postgres' };

    // The databases as a first start leaves them, then a second organization provisioned on the same server.
    await migrateDatabases(dbs);
    const selfHosted = await startProcess(selfHostedEnv);
    processes.push(selfHosted);
    const alpha = (await dbs.controlPlane('organizations').first('id')).id as string;
    const started = Date.now();
    const findings = await seedWorkspace(dbs.tenant, { findingsPerReport: 10 });
    const topology = tenantTopology([], urls.tenant);
    const { organization } = await provisionOrganization(
      { controlPlane: dbs.controlPlane, topology, loadLibrary: async () => {}, createAdministrator: async () => {} },
      { name: 'Beta', plan: 'business', server: 'default', adminEmail: 'owner@beta.example' },
    );
    await dbs.controlPlane('organizations').update({ plan: 'business' });
    betaTenant = createKnex(`${pg.baseUrl}/${organization.tenantDatabase}`, 2);
    await seedWorkspace(betaTenant, { findingsPerReport: 10 });
    console.log(
      `seeded ${findings} findings in each of two tenant databases in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    const alphaKey = { authorization: `Bearer ${await keyFor(dbs.controlPlane, alpha, dbs.tenant)}` };
    const betaKey = {
      authorization: `Bearer ${await keyFor(dbs.controlPlane, organization.organizationId, betaTenant)}`,
    };
    const clientOf = async (db: Knex) => (await db('clients').orderBy('id').first('id')).id as string;
    const reportOf = async (db: Knex) => (await db('reports').orderBy('id').first('id')).id as string;
    const alphaPaths = {
      one: `/rest/v1/clients/${await clientOf(dbs.tenant)}`,
      list: `/rest/v1/findings?per_page=100&report_id=${await reportOf(dbs.tenant)}`,
    };
    const betaPaths = {
      one: `/rest/v1/clients/${await clientOf(betaTenant)}`,
      list: `/rest/v1/findings?per_page=100&report_id=${await reportOf(betaTenant)}`,
    };

    const hostedOne = await startProcess(hostedEnv);
    processes.push(hostedOne);

    console.log('\n1. Self-hosted process vs hosted process (organization in its own tenant database)');
    for (const [label, svc, paths, headers] of [
      ['self-hosted', selfHosted, alphaPaths, alphaKey],
      ['hosted     ', hostedOne, betaPaths, betaKey],
    ] as const) {
      await sequential(`${svc.url}${paths.one}`, headers, 300);
      const one = await sequential(`${svc.url}${paths.one}`, headers, 3000);
      await load(`${svc.url}${paths.list}`, { connections: 4, seconds: 2, headers });
      const list = await load(`${svc.url}${paths.list}`, { connections: 16, seconds, headers });
      console.log(
        `${label} GET one client, one at a time: p50 ${one.p50.toFixed(3)} ms, mean ${one.mean.toFixed(3)} ms`,
      );
      console.log(formatLoad(`${label} findings list, 16 connections`, list));
    }
    for (const p of processes.splice(0)) await p.stop();

    console.log(
      '\n2. One hosted process vs two (rate limits shared through PostgreSQL), findings list, 16 connections in all',
    );
    const first = await startProcess(sharedEnv);
    processes.push(first);
    await load(`${first.url}${betaPaths.list}`, { connections: 4, seconds: 2, headers: betaKey });
    const single = await load(`${first.url}${betaPaths.list}`, { connections: 16, seconds, headers: betaKey });
    console.log(formatLoad('1 process', single));
    const second = await startProcess(sharedEnv);
    processes.push(second);
    await load(`${second.url}${betaPaths.list}`, { connections: 4, seconds: 2, headers: betaKey });
    const both: LoadResult[] = await Promise.all(
      [first, second].map((p) => load(`${p.url}${betaPaths.list}`, { connections: 8, seconds, headers: betaKey })),
    );
    const total = both.reduce((a, r) => a + r.requestsPerSecond, 0);
    const p99 = Math.max(...both.map((r) => r.p99));
    console.log(
      `2 processes                                  ${total.toFixed(0).padStart(7)} ` +
        `req/s   p99 ${p99.toFixed(2).padStart(6)} ms (the slower ` +
        `process)${both.some((r) => r.errors || r.non2xx) ? `   (${both.map((r) => r.errors + r.non2xx).join('+')} errors or non-2xx)` : ''}`,
    );
    console.log('(one machine: the processes, PostgreSQL and the load generator share its cores)');
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await betaTenant?.destroy();
    await Promise.all(DATABASE_NAMES.map((n) => dbs[n].destroy()));
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(pgDir, { recursive: true, force: true });
  }
}
