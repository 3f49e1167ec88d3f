import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { loadConfig, type Config } from '@service/config';
import type { License } from '@service/auth';
import { createKnex, DATABASE_NAMES, type DatabaseName } from '@service/db';
import { createTestDatabases, type TestDatabases } from '@service/db/testing';
import { createJsonLogger, MemoryRateLimitStore, PostgresRateLimitStore, type RateLimitStore } from '@service/http';
import type { Knex } from 'knex';
import type { TenantRouter } from '@service/tenancy';
import { createApp } from '../../src/app.ts';
import { readBuildInfo } from '../../src/build-info.ts';
import { prepareService } from '../../src/prepare-service.ts';

export const TEST_ADMIN_PASSWORD = 'test-admin-password-1';

export interface TestApp {
  url: string;
  dbs: Record<DatabaseName, Knex>;
  config: Config;
  databases: TestDatabases;
  logLines: string[];
  /** The licence in force; tests may replace it. */
  license: License | null;
  rateLimitStore: RateLimitStore;
  tenants: TenantRouter;
  stop(): Promise<void>;
}

export interface StartTestAppOptions {
  /** Behave like the embedded evaluation install (30-day evaluation licence). Default true. */
  evaluation?: boolean;
  /** `postgres`: counters in this app's control-plane database, shared with any `reuse` app. */
  rateLimitStore?: RateLimitStore | 'postgres';
  /** Serve a second app on the databases of this one (as a second service process would). */
  reuse?: TestApp;
}

/**
 * Fresh three databases, migrated, and the app listening on a random port. One per test file
 * (call in beforeAll, stop in afterAll). Rate limits are raised unless the env sets them.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: StartTestAppOptions = {},
): Promise<TestApp> {
  const databases = options.reuse?.databases ?? (await createTestDatabases());
  const config = loadConfig(
    {
      CONTROL_PLANE_DATABASE_URL: databases.urls.controlPlane,
      SHARED_DATABASE_URL: databases.urls.shared,
      TENANT_DATABASE_URL: databases.urls.tenant,
      LOG_LEVEL: 'info',
      HEALTH_TIMEOUT_MS: '1000',
      RATE_LIMIT_PER_IP: '1000000',
      RATE_LIMIT_PER_KEY: '1000000',
      SERVICE_ADMIN_EMAIL: 'admin@example.com',
      SERVICE_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      ...env,
    },
    { envFile: null },
  );
  const dbs = Object.fromEntries(
    DATABASE_NAMES.map((n) => [n, createKnex(databases.urls[n], 5, `test:${n}`)]),
  ) as Record<DatabaseName, Knex>;
  const build = readBuildInfo();
  const logLines: string[] = [];
  const logger = createJsonLogger(config.logLevel, (line) => {
    logLines.push(line);
  });
  const { license, tenants } = await prepareService({
    config,
    dbs,
    embedded: options.evaluation ?? true,
    logger,
    build,
  });
  const rateLimitStore =
    options.rateLimitStore === 'postgres'
      ? new PostgresRateLimitStore(dbs.controlPlane)
      : (options.rateLimitStore ?? new MemoryRateLimitStore());
  const { koa } = createApp({
    config,
    dbs,
    logger,
    build,
    currentLicense: () => testApp.license,
    rateLimitStore,
    tenants,
  });
  const server: Server = createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const testApp: TestApp = {
    license,
    rateLimitStore,
    tenants,
    url: `http://127.0.0.1:${port}`,
    dbs,
    config,
    databases,
    logLines,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tenants.close();
      await Promise.all(DATABASE_NAMES.map((n) => dbs[n].destroy()));
      if (!options.reuse) await databases.drop();
    },
  };
  return testApp;
}
