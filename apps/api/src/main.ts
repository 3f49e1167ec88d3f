// Starts the service: configuration, databases (migrated and version-checked before listening),
// the organization and first administrator, the licence, the HTTP server, and a graceful shutdown
// on SIGTERM/SIGINT.
import { createServer, type Server } from 'node:http';
import type { License } from '@service/auth';
import { ConfigError, loadConfig } from '@service/config';
import { DatabaseStartupError, EmbeddedServerError, openDatabases, VersionGuardError, type Databases } from '@service/db';
import { createJsonLogger, MemoryRateLimitStore, PostgresRateLimitStore, type RateLimitStore } from '@service/http';
import { createApp } from './app.ts';
import { readBuildInfo } from './build-info.ts';
import { LicenseLoadError } from './licensing/load-license.ts';
import { prepareService } from './prepare-service.ts';

/** One clear line on stderr and a non-zero exit for the errors an operator can fix. */
function fail(message: string): never {
  process.stderr.write(`service: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const started = Date.now();
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const logger = createJsonLogger(config.logLevel);
  const build = readBuildInfo(config.buildSha);

  let dbs: Databases;
  try {
    dbs = await openDatabases({
      urls: config.databaseUrls,
      dataDir: config.dataDir,
      poolMax: config.dbPoolMax,
      startupTimeoutMs: config.dbStartupTimeoutMs,
      logger,
    });
  } catch (err) {
    if (err instanceof DatabaseStartupError || err instanceof EmbeddedServerError) fail(err.message);
    throw err;
  }

  let license: License | null;
  try {
    ({ license } = await prepareService({ config, dbs, embedded: dbs.embedded !== null, logger, build }));
  } catch (err) {
    await dbs.close();
    if (err instanceof VersionGuardError || err instanceof LicenseLoadError) fail(err.message);
    throw err;
  }

  const rateLimitStore: RateLimitStore = config.rateLimitStore === 'postgres' ? new PostgresRateLimitStore(dbs.controlPlane) : new MemoryRateLimitStore();
  const pruneTimer = setInterval(() => rateLimitStore.prune(Date.now()).catch(() => {}), 60_000);
  pruneTimer.unref();

  const { koa } = createApp({ config, dbs, logger, build, currentLicense: () => license, rateLimitStore });
  const server: Server = createServer(koa.callback());
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 300_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info('listening', { port, version: build.version, edition: config.edition, database: config.databaseSource, startupMs: Date.now() - started });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting_down', { signal });
    clearInterval(pruneTimer);
    const force = setTimeout(() => {
      logger.warn('shutdown_timeout', { message: 'in-flight requests did not finish in time; closing them' });
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    force.unref();
    // Stop accepting, let in-flight requests finish, then close the pools and the embedded server.
    server.close(async () => {
      clearTimeout(force);
      await dbs.close();
      logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  if (err && typeof err === 'object' && 'code' in err && (err as { code?: string }).code === 'EADDRINUSE') {
    fail('the port is already in use; set PORT to another port or stop the other process.');
  }
  process.stderr.write(`service: failed to start: ${(err as Error)?.message ?? String(err)}\n`);
  process.exit(1);
});
