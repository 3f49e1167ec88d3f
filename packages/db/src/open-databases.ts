import { Socket } from 'node:net';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { DATABASE_FOLDERS, DATABASE_NAMES, type DatabaseName } from './database-names.ts';
import { describeDatabaseError, isDatabaseUnavailableError } from './database-errors.ts';
import { findRunningEmbeddedServer, startEmbeddedServer, type EmbeddedServer } from './embedded-server.ts';
import type { Logger } from './logger.ts';

// Why: counts and bigint ids come back as strings by default; every count we return fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));
// Why: a `date` column is a calendar day (`2026-03-01`), not an instant; read as a Date it became the
// local midnight, and the day before wherever the process runs east of UTC.
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

export type DatabaseUrls = Record<DatabaseName, string>;

export interface Databases {
  controlPlane: Knex;
  shared: Knex;
  tenant: Knex;
  embedded: EmbeddedServer | null;
  close(): Promise<void>;
}

/**
 * Bounds on waiting for the database, so a hung or overloaded database answers 503 quickly instead of hanging requests.
 */
export interface DatabaseTimeouts {
  /** How long a query waits for a free pool connection (and at most for a new one to connect). */
  acquireTimeoutMs: number;
  /**
   * Server-side `statement_timeout`; the client gives up shortly after it, for a server that does not answer at all.
   */
  statementTimeoutMs: number;
  /**
   * The longest statement time limit work sets for itself (`limitStatementTime`: searches, bulk
   * imports and exports), when longer than `statementTimeoutMs`: the client waits that long for an
   * answer before it treats the server as hung.
   */
  longestStatementMs?: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { acquireTimeoutMs: 5_000, statementTimeoutMs: 15_000 };

/**
 * How much longer than the server's statement timeout the client waits for an answer before it treats the server as
 * hung.
 */
const CLIENT_GRACE_MS = 2_000;

export interface OpenDatabasesOptions {
  /** null: start the embedded server under `dataDir`. */
  urls: DatabaseUrls | null;
  dataDir: string;
  poolMax: number;
  startupTimeoutMs: number;
  timeouts?: DatabaseTimeouts;
  logger: Logger;
  /**
   * The embedded server died and could not be restarted (see startEmbeddedServer): the process
   * should exit non-zero so a supervisor starts it again.
   */
  onEmbeddedServerLost?: (err: Error) => void;
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

/** pg's client-side timeout error (`query_timeout`): the server did not answer at all. */
const QUERY_READ_TIMEOUT = 'Query read timeout';

type PgQueryCallback = (err: Error | null, result?: unknown) => void;

/**
 * Why: when the client gives up on a query the server never answered, the connection is still
 * busy with it; handed out again, every later query would queue behind it. Closing its socket
 * makes knex drop the connection, and the next query gets a fresh one (or a quick 503).
 */
function dropConnectionOnReadTimeout(connection: pg.Client): void {
  const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  const drop = (err: unknown) => {
    if (!(err instanceof Error) || err.message !== QUERY_READ_TIMEOUT) return;
    // Why by reflection: pg keeps the socket in its connection object, which it does not type.
    const socket: unknown = Reflect.get(Reflect.get(connection, 'connection') ?? {}, 'stream');
    if (socket instanceof Socket) socket.destroy();
  };
  const wrapped = (...args: unknown[]) => {
    const at = args.findIndex((a) => typeof a === 'function');
    if (at >= 0) {
      const callback = args[at] as PgQueryCallback;
      args[at] = (err: Error | null, result?: unknown) => {
        drop(err);
        callback(err, result);
      };
    }
    const result = query(...args);
    if (at < 0 && result instanceof Promise) result.catch(drop);
    return result;
  };
  Object.defineProperty(connection, 'query', { value: wrapped, writable: true, configurable: true });
}

/**
 * A knex handle on one database. Queries wait at most `acquireTimeoutMs` for a connection; the
 * server cancels a statement after `statementTimeoutMs` (and an idle transaction after a minute);
 * the client gives up shortly after that when the server does not answer at all. Each of these
 * fails the query with an error isDatabaseUnavailableError recognises (503, not a hang).
 */
export function createKnex(
  url: string,
  poolMax: number,
  applicationName = 'service',
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
): Knex {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      application_name: applicationName,
      connectionTimeoutMillis: Math.min(timeouts.acquireTimeoutMs, 5_000),
      keepAlive: true,
      ...(timeouts.statementTimeoutMs > 0
        ? {
            statement_timeout: timeouts.statementTimeoutMs,
            query_timeout: Math.max(timeouts.statementTimeoutMs, timeouts.longestStatementMs ?? 0) + CLIENT_GRACE_MS,
            idle_in_transaction_session_timeout: 60_000,
          }
        : {}),
    },
    pool: {
      min: 0,
      max: poolMax,
      idleTimeoutMillis: 30_000,
      afterCreate(connection: pg.Client, done: (err: Error | null, connection: pg.Client) => void) {
        dropConnectionOnReadTimeout(connection);
        done(null, connection);
      },
    },
    acquireConnectionTimeout: timeouts.acquireTimeoutMs,
    // Why: knex prints pool errors to the console; the caller sees them as thrown errors anyway.
    log: { warn() {}, error() {}, deprecate() {}, debug() {} },
  });
}

/**
 * A second handle on the same database without statement timeouts, for work that may rightly run
 * long: migrations of a large installation. The caller destroys it.
 */
export function createUntimedKnex(db: Knex): Knex {
  const config = db.client.config as Knex.Config & { connection: Record<string, unknown> | string };
  const connection =
    typeof config.connection === 'string' ? { connectionString: config.connection } : { ...config.connection };
  delete connection.statement_timeout;
  delete connection.query_timeout;
  delete connection.idle_in_transaction_session_timeout;
  return knexFactory({ ...config, connection, pool: { min: 0, max: 2 } } as Knex.Config);
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

/** True when `work` settled within `ms`; false when the time ran out first (work goes on unobserved). */
async function settleWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
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
    if (!running)
      embedded = await startEmbeddedServer({ dataDir: options.dataDir, logger, onLost: options.onEmbeddedServerLost });
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
        `Cannot reach the ${failures.join('; ')} (gave up after ${attempt} attempts in ` +
          `${Math.round(options.startupTimeoutMs / 1000)} s). Check the database settings ` +
          `and that PostgreSQL is running.`,
      );
    }
    logger.warn('database_unreachable', { attempt, retryInMs: delay, failures });
    await sleep(delay);
    delay = Math.min(delay * 2, 5_000);
  }

  const timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  const handles = {
    controlPlane: createKnex(urls.controlPlane, options.poolMax, 'service:control-plane', timeouts),
    shared: createKnex(urls.shared, options.poolMax, 'service:shared', timeouts),
    tenant: createKnex(urls.tenant, options.poolMax, 'service:tenant', timeouts),
  };
  return {
    ...handles,
    embedded,
    async close() {
      // Why bounded: a pool waits for connections still in use; a query stuck on a dead server
      // must not keep the embedded server (and the data directory lock) alive forever.
      const closed = await settleWithin(
        Promise.allSettled(DATABASE_NAMES.map((n) => handles[n].destroy())),
        timeouts.statementTimeoutMs + CLIENT_GRACE_MS,
      );
      if (!closed)
        logger.warn('database_pools_not_closed', {
          message: 'connections still in use when the service stopped; closing the database anyway',
        });
      await embedded?.stop();
    },
  };
}
