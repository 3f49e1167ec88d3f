import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import { loadConfig, type Config } from '@service/config';
import type { License } from '@service/auth';
import { createKnex, DATABASE_NAMES, type DatabaseName, type DatabaseUrls } from '@service/db';
import { createTestDatabases, ensureTemplateDatabases, type TestDatabases } from '@service/db/testing';
import { createJsonLogger, MemoryRateLimitStore, PostgresRateLimitStore, type RateLimitStore } from '@service/http';
import type { Knex } from 'knex';
import type { TenantRouter } from '@service/tenancy';
import type { DocxPdfConverter } from '@service/docx';
import type { StoredFiles } from '@service/storage';
import { openStoredFiles } from '../../src/files/open-stored-files.ts';
import { createApp, type App } from '../../src/app.ts';
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
  /** The app's services, for tests that count what they did (documents rendered). */
  services: App['services'];
  /** The app's file store (FILES_STORE: a directory by default). */
  files: StoredFiles;
  stop(): Promise<void>;
}

export interface StartTestAppOptions {
  /** Behave like the embedded evaluation install (30-day evaluation licence). Default true. */
  evaluation?: boolean;
  /** `postgres`: counters in this app's control-plane database, shared with any `reuse` app. */
  rateLimitStore?: RateLimitStore | 'postgres';
  /**
   * Count every request at this instant (ms), so a burst never straddles a window boundary of the
   * real clock (where the sliding window's estimate lets a request or two more through).
   */
  rateLimitAt?: number;
  /** The PDF converter (default: LibreOffice as `soffice`, as the service runs it). */
  pdf?: DocxPdfConverter;
  /** Serve a second app on the databases of this one (as a second service process would). */
  reuse?: TestApp;
}

/** `store` with every request counted at `at` instead of the caller's clock. */
function atInstant(store: RateLimitStore, at: number): RateLimitStore {
  return {
    consume: (key, cost, limit, windowMs) => store.consume(key, cost, limit, windowMs, at),
    refund: (key, cost, windowMs) => store.refund(key, cost, windowMs, at),
    prune: () => store.prune(at),
  };
}

const REPO = path.resolve(import.meta.dirname, '../../../..');

/**
 * The build the test apps run: this checkout's version, the commit left unknown (finding it runs
 * `git`, and the database lane starts no process; no test depends on it).
 */
const testBuild = () => readBuildInfo('unknown');

function testConfig(urls: DatabaseUrls, env: Record<string, string>): Config {
  return loadConfig(
    {
      CONTROL_PLANE_DATABASE_URL: urls.controlPlane,
      SHARED_DATABASE_URL: urls.shared,
      TENANT_DATABASE_URL: urls.tenant,
      LOG_LEVEL: 'info',
      // Long: on a busy machine a healthy database can take over a second to answer the check.
      HEALTH_TIMEOUT_MS: '10000',
      RATE_LIMIT_PER_IP: '1000000',
      RATE_LIMIT_PER_KEY: '1000000',
      SERVICE_ADMIN_EMAIL: 'admin@example.com',
      SERVICE_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      ...env,
    },
    { envFile: null },
  );
}

const openDbs = (urls: DatabaseUrls) =>
  Object.fromEntries(DATABASE_NAMES.map((n) => [n, createKnex(urls[n], 5, `test:${n}`)])) as Record<DatabaseName, Knex>;

/**
 * Settings that change what a first start writes into the databases (and, for the file store, where
 * the library's Word templates that the rows name were written).
 */
const SEEDING_SETTINGS = [
  'SERVICE_EDITION',
  'SERVICE_ADMIN_EMAIL',
  'SERVICE_ADMIN_PASSWORD',
  'TENANT_SERVERS',
  'FILES_STORE',
  'FILES_DIR',
];

/** Digest of what a first start writes: the migrations, the library and the version. */
function preparedKey(): string {
  const hash = createHash('sha256').update(testBuild().version);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else hash.update(path.relative(REPO, file)).update(readFileSync(file));
    }
  };
  walk(path.join(REPO, 'migrations'));
  walk(path.join(REPO, 'library'));
  return hash.digest('hex').slice(0, 16);
}

/**
 * The databases of a first start with the default settings, prepared once per test server and
 * copied for each app (copying is much faster than migrating and importing the library again).
 */
let preparedTemplate: Promise<string> | null = null;
function preparedDatabases(): Promise<string> {
  preparedTemplate ??= ensureTemplateDatabases(preparedKey(), async (urls) => {
    const dbs = openDbs(urls);
    const logger = createJsonLogger('silent', () => {});
    const config = testConfig(urls, {});
    const files = await openStoredFiles(config);
    try {
      const { tenants } = await prepareService({ config, dbs, embedded: true, logger, build: testBuild(), files });
      await tenants.close();
    } finally {
      await files.store.close();
      await Promise.all(DATABASE_NAMES.map((n) => dbs[n].destroy()));
    }
  });
  return preparedTemplate;
}

/**
 * Fresh three databases, migrated, and the app listening on a random port. One per test file
 * (call in beforeAll, stop in afterAll). Rate limits are raised unless the env sets them.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: StartTestAppOptions = {},
): Promise<TestApp> {
  const fromTemplate = (options.evaluation ?? true) && !SEEDING_SETTINGS.some((s) => s in env);
  const databases =
    options.reuse?.databases ??
    (await createTestDatabases({ template: fromTemplate ? await preparedDatabases() : undefined }));
  const config = testConfig(databases.urls, env);
  const dbs = openDbs(databases.urls);
  const build = testBuild();
  const logLines: string[] = [];
  const logger = createJsonLogger(config.logLevel, (line) => {
    logLines.push(line);
  });
  const files = await openStoredFiles(config);
  const { license, tenants } = await prepareService({
    config,
    dbs,
    embedded: options.evaluation ?? true,
    logger,
    build,
    files,
  });
  const store =
    options.rateLimitStore === 'postgres'
      ? new PostgresRateLimitStore(dbs.controlPlane)
      : (options.rateLimitStore ?? new MemoryRateLimitStore());
  const rateLimitStore = options.rateLimitAt === undefined ? store : atInstant(store, options.rateLimitAt);
  const { koa, close, services } = createApp({
    config,
    dbs,
    logger,
    build,
    currentLicense: () => testApp.license,
    rateLimitStore,
    tenants,
    files,
    ...(options.pdf ? { pdf: options.pdf } : {}),
  });
  const server: Server = createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const testApp: TestApp = {
    services,
    license,
    rateLimitStore,
    tenants,
    files,
    url: `http://127.0.0.1:${port}`,
    dbs,
    config,
    databases,
    logLines,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await close();
      await tenants.close();
      await files.store.close();
      await Promise.all(DATABASE_NAMES.map((n) => dbs[n].destroy()));
      if (!options.reuse) await databases.drop();
    },
  };
  return testApp;
}
