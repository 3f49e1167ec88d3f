// A real service for benchmarks: embedded PostgreSQL in a temporary directory, the three
// databases migrated, the app listening on a random port, with its access log serialised but
// discarded (so logging costs what it costs in production, without filling the terminal).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Koa from 'koa';
import type { Knex } from 'knex';
import { loadConfig } from '@service/config';
import {
  createKnex,
  DATABASE_NAMES,
  ensureDatabase,
  silentLogger,
  startEmbeddedServer,
  type DatabaseName,
} from '@service/db';
import { createJsonLogger, MemoryRateLimitStore } from '@service/http';
import { createApp, openStoredFiles, prepareService, readBuildInfo, type App } from '@service/api';

export interface BenchService {
  app: App;
  url: string;
  dbs: Record<DatabaseName, Knex>;
  listen(koa: Koa): Promise<{ url: string; close(): Promise<void> }>;
  stop(): Promise<void>;
}

/** `env`: settings beside the defaults (the file store, for example); FILES_DIR defaults to a folder of the run. */
export async function startBenchService(env: Record<string, string> = {}): Promise<BenchService> {
  const dir = mkdtempSync(path.join(tmpdir(), 'service-bench-'));
  const pg = await startEmbeddedServer({
    dataDir: dir,
    logger: silentLogger,
    lock: false,
    settings: { max_connections: '200', fsync: 'off', synchronous_commit: 'off' },
  });
  const urls = {
    controlPlane: `${pg.baseUrl}/bench_cp`,
    shared: `${pg.baseUrl}/bench_shared`,
    tenant: `${pg.baseUrl}/bench_tenant`,
  };
  for (const n of DATABASE_NAMES) await ensureDatabase(urls[n]);
  const dbs = Object.fromEntries(DATABASE_NAMES.map((n) => [n, createKnex(urls[n], 20)])) as Record<DatabaseName, Knex>;
  const config = loadConfig(
    {
      CONTROL_PLANE_DATABASE_URL: urls.controlPlane,
      SHARED_DATABASE_URL: urls.shared,
      TENANT_DATABASE_URL: urls.tenant,
      RATE_LIMIT_PER_IP: '10000000',
      RATE_LIMIT_PER_KEY: '10000000',
      SERVICE_ADMIN_EMAIL: 'bench@example.com',
      SERVICE_ADMIN_PASSWORD: 'bench-password-123',
      FILES_DIR: path.join(dir, 'files'),
      ...env,
    },
    { envFile: null },
  );
  const logger = createJsonLogger('info', () => {});
  const build = readBuildInfo();
  const files = await openStoredFiles(config);
  const { license, tenants } = await prepareService({
    config,
    dbs,
    embedded: true,
    logger: createJsonLogger('error'),
    build,
    files,
  });
  const app = createApp({
    config,
    dbs,
    logger,
    build,
    currentLicense: () => license,
    rateLimitStore: new MemoryRateLimitStore(),
    tenants,
    files,
  });
  const servers: Server[] = [];
  const listen = async (koa: Koa) => {
    const server = createServer(koa.callback());
    server.keepAliveTimeout = 65_000;
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise<void>((r) => server.close(() => r())),
    };
  };
  const main = await listen(app.koa);
  return {
    app,
    url: main.url,
    dbs,
    listen,
    async stop() {
      for (const s of servers) {
        s.closeAllConnections();
        s.close();
      }
      await tenants.close();
      await files.store.close();
      await Promise.all(DATABASE_NAMES.map((n) => dbs[n].destroy()));
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
