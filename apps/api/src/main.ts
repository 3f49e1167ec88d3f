// Starts the service: configuration, databases (migrated and version-checked before listening),
// the organization and first administrator, the licence, the HTTP server, housekeeping, and a
// graceful shutdown on SIGTERM/SIGINT: in-flight requests finish (or SHUTDOWN_TIMEOUT_MS runs
// out) before the databases close.
import { createServer, type Server } from 'node:http';
import { SessionRepository, type License } from '@service/auth';
import { type Config, ConfigError, loadConfig } from '@service/config';
import {
  DatabaseStartupError,
  EmbeddedServerError,
  openDatabases,
  VersionGuardError,
  type Databases,
} from '@service/db';
import { createJsonLogger, MemoryRateLimitStore, PostgresRateLimitStore, type RateLimitStore } from '@service/http';
import { FileStoreStartError, type StoredFiles } from '@service/storage';
import { TenancyError, type TenantRouter } from '@service/tenancy';
import { createApp } from './app.ts';
import { openStoredFiles } from './files/open-stored-files.ts';
import { readBuildInfo } from './build-info.ts';
import { LicenseLoadError } from './licensing/load-license.ts';
import { databaseTimeoutsOf, prepareService } from './prepare-service.ts';
import { startHousekeeping } from './system/housekeeping.ts';
import { releaseMemorySoon } from './system/release-memory.ts';

/** One clear line on stderr and a non-zero exit for the errors an operator can fix. */
function fail(message: string): never {
  process.stderr.write(`service: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const started = Date.now();
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const logger = createJsonLogger(config.logLevel);
  const build = readBuildInfo(config.buildSha);

  // Why before the databases: a store that cannot be used is refused at once, with one line.
  let files: StoredFiles;
  try {
    files = await openStoredFiles(config);
  } catch (err) {
    if (err instanceof FileStoreStartError) fail(err.message);
    throw err;
  }
  logger.info('file_store', { kind: files.store.kind, where: files.store.description });

  // Why a late binding: the embedded server can be lost before the HTTP server exists.
  let shutdown: (reason: string, exitCode: number) => void = (_reason, exitCode) => process.exit(exitCode);

  let dbs: Databases;
  try {
    dbs = await openDatabases({
      urls: config.databaseUrls,
      dataDir: config.dataDir,
      poolMax: config.dbPoolMax,
      startupTimeoutMs: config.dbStartupTimeoutMs,
      timeouts: databaseTimeoutsOf(config),
      logger,
      // Why exit: the embedded PostgreSQL died and did not come back after several restarts; a
      // supervisor (systemd, the container runtime) starting the whole service again is the next step.
      onEmbeddedServerLost: () => shutdown('embedded_postgres_lost', 1),
    });
  } catch (err) {
    if (err instanceof DatabaseStartupError || err instanceof EmbeddedServerError) fail(err.message);
    throw err;
  }

  let license: License | null;
  let tenants: TenantRouter;
  try {
    ({ license, tenants } = await prepareService({
      config,
      dbs,
      embedded: dbs.embedded !== null,
      logger,
      build,
      files,
    }));
  } catch (err) {
    await dbs.close();
    if (err instanceof VersionGuardError || err instanceof LicenseLoadError || err instanceof TenancyError)
      fail(err.message);
    throw err;
  }

  const rateLimitStore: RateLimitStore =
    config.rateLimitStore === 'postgres' ? new PostgresRateLimitStore(dbs.controlPlane) : new MemoryRateLimitStore();
  const {
    koa,
    close: closeApp,
    fileStore,
  } = createApp({
    config,
    dbs,
    logger,
    build,
    currentLicense: () => license,
    rateLimitStore,
    tenants,
    files,
  });
  const housekeeping = startHousekeeping({
    rateLimitStore,
    sessions: new SessionRepository(dbs.controlPlane),
    tenants,
    logger,
    files: { stored: files, status: fileStore },
  });
  const server: Server = createServer(koa.callback());
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 300_000;

  let stopping = false;
  let inFlight = 0;
  server.on('request', (_req, res) => {
    inFlight += 1;
    // Why: during shutdown a finished keep-alive connection is closed instead of waiting for more.
    if (stopping) res.setHeader('Connection', 'close');
    res.once('close', () => {
      inFlight -= 1;
      if (stopping) server.closeIdleConnections();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info('listening', {
    port,
    version: build.version,
    edition: config.edition,
    database: config.databaseSource,
    startupMs: Date.now() - started,
  });
  void housekeeping.runOnce();
  // Why: the start leaves garbage (migrations, the library, the OpenAPI document) that an idle
  // process would otherwise keep.
  releaseMemorySoon(10_000);

  shutdown = (reason, exitCode) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting_down', { reason, inFlight, timeoutMs: config.shutdownTimeoutMs });
    housekeeping.stop();
    const force = setTimeout(() => {
      logger.warn('shutdown_timeout', {
        inFlight,
        message: 'in-flight requests did not finish in SHUTDOWN_TIMEOUT_MS; closing them',
      });
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    force.unref();
    // Stop accepting, let in-flight requests finish, then close the pools and, last, the embedded server.
    server.close(() => {
      clearTimeout(force);
      closeApp()
        .then(() => tenants.close())
        .then(() => dbs.close())
        .then(() => files.store.close())
        .catch((err: unknown) =>
          logger.error('shutdown_failed', { error: { name: (err as Error)?.name, message: (err as Error)?.message } }),
        )
        .finally(() => {
          logger.info('stopped', { exitCode });
          process.exit(exitCode);
        });
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM', 0));
  process.on('SIGINT', () => shutdown('SIGINT', 0));
}

main().catch((err: unknown) => {
  if (err && typeof err === 'object' && 'code' in err && (err as { code?: string }).code === 'EADDRINUSE') {
    fail('the port is already in use; set PORT to another port or stop the other process.');
  }
  process.stderr.write(`service: failed to start: ${(err as Error)?.message ?? String(err)}\n`);
  process.exit(1);
});
