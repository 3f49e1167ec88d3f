import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { loadConfig, type Config } from '@service/config';
import { createKnex, DATABASE_NAMES, prepareDatabases, type DatabaseName } from '@service/db';
import { createTestDatabases, type TestDatabases } from '@service/db/testing';
import { createJsonLogger } from '@service/http';
import type { Knex } from 'knex';
import { createApp } from '../../src/app.ts';
import { readBuildInfo } from '../../src/build-info.ts';

export interface TestApp {
  url: string;
  dbs: Record<DatabaseName, Knex>;
  config: Config;
  databases: TestDatabases;
  logLines: string[];
  stop(): Promise<void>;
}

/**
 * Fresh three databases, migrated, and the app listening on a random port. One per test file
 * (call in beforeAll, stop in afterAll).
 */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const databases = await createTestDatabases();
  const config = loadConfig(
    {
      CONTROL_PLANE_DATABASE_URL: databases.urls.controlPlane,
      SHARED_DATABASE_URL: databases.urls.shared,
      TENANT_DATABASE_URL: databases.urls.tenant,
      LOG_LEVEL: 'info',
      HEALTH_TIMEOUT_MS: '1000',
      ...env,
    },
    { envFile: null },
  );
  const dbs = Object.fromEntries(DATABASE_NAMES.map((n) => [n, createKnex(databases.urls[n], 5, `test:${n}`)])) as Record<DatabaseName, Knex>;
  const build = readBuildInfo();
  await prepareDatabases(dbs, build.version);
  const logLines: string[] = [];
  const logger = createJsonLogger(config.logLevel, (line) => {
    logLines.push(line);
  });
  const { koa } = createApp({ config, dbs, logger, build });
  const server: Server = createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dbs,
    config,
    databases,
    logLines,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(DATABASE_NAMES.map((n) => dbs[n].destroy()));
      await databases.drop();
    },
  };
}
