import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { DATABASE_FOLDERS, DATABASE_NAMES, type DatabaseName } from './database-names.ts';
import { describeDatabaseError, isDatabaseUnavailableError } from './database-errors.ts';
import { findRunningEmbeddedServer, startEmbeddedServer, type EmbeddedServer } from './embedded-server.ts';
import type { Logger } from './logger.ts';

// Why: counts and bigint ids come back as strings by default; every count we return fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

export type DatabaseUrls = Record<DatabaseName, string>;

export interface Databases {
  controlPlane: Knex;
  shared: Knex;
  tenant: Knex;
  embedded: EmbeddedServer | null;
  close(): Promise<void>;
}

export interface OpenDatabasesOptions {
  /** null: start the embedded server under `dataDir`. */
  urls: DatabaseUrls | null;
  dataDir: string;
  poolMax: number;
  startupTimeoutMs: number;
  logger: Logger;
  /** Create missing databases (embedded, DATABASE_URL, tests). */
  createMissing?: boolean;
  /** Operator commands: use the embedded server of a running service instead of refusing. */
  attachToRunning?: boolean;
}

export class DatabaseStartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseStartupError';
  }
}

export function createKnex(url: string, poolMax: number, applicationName = 'service'): Knex {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      application_name: applicationName,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
    },
    pool: { min: 0, max: poolMax, idleTimeoutMillis: 30_000 },
    acquireConnectionTimeout: 10_000,
    // Why: knex prints pool errors to the console; the caller sees them as thrown errors anyway.
    log: { warn() {}, error() {}, deprecate() {}, debug() {} },
  });
}

/** Creates the database named in `url` on its server when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`create database ${pg.escapeIdentifier(name)} encoding 'UTF8' template template0`);
      } catch (err) {
        // Why: two processes starting together may race to create it; the loser is fine.
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    }
  } finally {
    await client.end();
  }
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/**
 * Opens the three databases. Retries with backoff while they cannot be reached, up to
 * `startupTimeoutMs`, then fails with one line naming the database and the reason.
 */
export async function openDatabases(options: OpenDatabasesOptions): Promise<Databases> {
  const { logger } = options;
  let embedded: EmbeddedServer | null = null;
  let urls = options.urls;
  let createMissing = options.createMissing ?? false;
  if (!urls) {
    const running = options.attachToRunning ? findRunningEmbeddedServer(options.dataDir) : null;
    if (!running) embedded = await startEmbeddedServer({ dataDir: options.dataDir, logger });
    const baseUrl = running?.baseUrl ?? embedded!.baseUrl;
    urls = {
      controlPlane: `${baseUrl}/service_control_plane`,
      shared: `${baseUrl}/service_shared`,
      tenant: `${baseUrl}/service_tenant`,
    };
    createMissing = true;
  }

  const deadline = Date.now() + options.startupTimeoutMs;
  let delay = 250;
  for (let attempt = 1; ; attempt++) {
    const failures: string[] = [];
    for (const name of DATABASE_NAMES) {
      try {
        if (createMissing) await ensureDatabase(urls[name]);
        const probe = new pg.Client({ connectionString: urls[name], connectionTimeoutMillis: 5_000 });
        await probe.connect();
        await probe.query('select 1');
        await probe.end();
      } catch (err) {
        if (!isDatabaseUnavailableError(err) && (err as { code?: string }).code !== '42501') throw err;
        failures.push(`${DATABASE_FOLDERS[name]} database: ${describeDatabaseError(err)}`);
      }
    }
    if (failures.length === 0) break;
    if (Date.now() + delay > deadline) {
      await embedded?.stop();
      throw new DatabaseStartupError(
        `Cannot reach the ${failures.join('; ')} (gave up after ${attempt} attempts in ${Math.round(options.startupTimeoutMs / 1000)} s). Check the database settings and that PostgreSQL is running.`,
      );
    }
    logger.warn('database_unreachable', { attempt, retryInMs: delay, failures });
    await sleep(delay);
    delay = Math.min(delay * 2, 5_000);
  }

  const handles = {
    controlPlane: createKnex(urls.controlPlane, options.poolMax, 'service:control-plane'),
    shared: createKnex(urls.shared, options.poolMax, 'service:shared'),
    tenant: createKnex(urls.tenant, options.poolMax, 'service:tenant'),
  };
  return {
    ...handles,
    embedded,
    async close() {
      await Promise.allSettled(DATABASE_NAMES.map((n) => handles[n].destroy()));
      await embedded?.stop();
    },
  };
}
