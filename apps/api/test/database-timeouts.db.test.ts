// A database that stops answering (a hung server, a network partition) must not hang requests:
// they answer 503 `unavailable` with Retry-After within the configured timeouts, and the service
// recovers by itself when the database answers again. The tenant database is reached through a
// TCP proxy the test can freeze.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@service/config';
import { createKnex, DATABASE_NAMES, type DatabaseName } from '@service/db';
import { createTestDatabases, type TestDatabases } from '@service/db/testing';
import { createJsonLogger, MemoryRateLimitStore } from '@service/http';
import { TenantRouter } from '@service/tenancy';
import { createApp, prepareService, readBuildInfo } from '../src/index.ts';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import type { TestApp } from './support/start-test-app.ts';
import { FreezableProxy } from './support/tcp-proxy.ts';
import type { StoredFiles } from '@service/storage';
import { openStoredFiles } from '../src/files/open-stored-files.ts';

let databases: TestDatabases;
let direct: Record<DatabaseName, Knex>;
let proxiedTenant: Knex;
let proxy: FreezableProxy;
let server: HttpServer;
let url: string;
let files: StoredFiles;
let actor: Actor;
/** Logged 500s: a database outage must never produce one. */
const failures: string[] = [];

beforeAll(async () => {
  databases = await createTestDatabases();
  const timeouts = { DB_ACQUIRE_TIMEOUT_MS: '1000', DB_STATEMENT_TIMEOUT_MS: '1000' };
  const config = loadConfig(
    {
      CONTROL_PLANE_DATABASE_URL: databases.urls.controlPlane,
      SHARED_DATABASE_URL: databases.urls.shared,
      TENANT_DATABASE_URL: databases.urls.tenant,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_IP: '1000000',
      RATE_LIMIT_PER_KEY: '1000000',
      SERVICE_ADMIN_EMAIL: 'admin@example.com',
      SERVICE_ADMIN_PASSWORD: 'test-admin-password-1',
      ...timeouts,
    },
    { envFile: null },
  );
  const dbTimeouts = { acquireTimeoutMs: config.dbAcquireTimeoutMs, statementTimeoutMs: config.dbStatementTimeoutMs };
  direct = Object.fromEntries(
    DATABASE_NAMES.map((n) => [n, createKnex(databases.urls[n], 5, `test:${n}`, dbTimeouts)]),
  ) as Record<DatabaseName, Knex>;
  const logger = createJsonLogger('info', (line) => {
    if (line.includes('"status":500')) failures.push(line);
  });
  const build = readBuildInfo('unknown');
  files = await openStoredFiles(config);
  const { license } = await prepareService({ config, dbs: direct, embedded: true, logger, build, files });
  const tenantUrl = new URL(databases.urls.tenant);
  proxy = new FreezableProxy({ host: tenantUrl.hostname, port: Number(tenantUrl.port) });
  await proxy.start();
  tenantUrl.port = String(proxy.port);
  proxiedTenant = createKnex(tenantUrl.toString(), 3, 'test:tenant-via-proxy', dbTimeouts);
  const tenants = new TenantRouter({
    edition: 'self-hosted',
    controlPlane: direct.controlPlane,
    configuredTenant: proxiedTenant,
  });
  const { koa } = createApp({
    config,
    dbs: { ...direct, tenant: proxiedTenant },
    logger,
    build,
    currentLicense: () => license,
    rateLimitStore: new MemoryRateLimitStore(),
    tenants,
    files,
  });
  server = createHttpServer(koa.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  actor = await createActor({ url, dbs: direct } as unknown as TestApp, { role: 'member' });
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => server?.close(() => r()) ?? r());
  await proxy?.stop();
  await proxiedTenant?.destroy().catch(() => undefined);
  await Promise.all(Object.values(direct ?? {}).map((db) => db.destroy()));
  await databases?.drop();
});

/** A request with a generous client-side limit: a hang fails the test instead of blocking it. */
async function get(path: string): Promise<{ status: number; retryAfter: string | null; code?: string }> {
  const res = await fetch(`${url}/rest/v1${path}`, {
    headers: { authorization: `Bearer ${actor.key}` },
    signal: AbortSignal.timeout(20_000),
  });
  const body = (await res.json()) as { error?: { code: string } };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.error?.code };
}

describe('a database that stops answering', () => {
  it(
    'answers 503 unavailable with Retry-After, for requests holding a connection and ' +
      'requests waiting for one, and recovers',
    async () => {
      expect((await get('/clients')).status).toBe(200);
      proxy.freeze();
      try {
        // More requests than the pool has connections: some wait on a query, the rest for a connection.
        const answers = await Promise.all(Array.from({ length: 6 }, () => get('/clients')));
        expect(failures).toEqual([]);
        for (const a of answers) expect(a).toEqual({ status: 503, retryAfter: '5', code: 'unavailable' });
        // Requests that need no tenant database are unaffected.
        expect((await fetch(`${url}/api/version`)).status).toBe(200);
      } finally {
        proxy.thaw();
      }
      let status = 0;
      for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
        status = (await get('/clients')).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 250));
      }
      expect(status).toBe(200);
    },
  );
});
