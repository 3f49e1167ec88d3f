import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from './config-error.ts';
import { parseEnvFile } from './env-file.ts';
import { readFilesStore, type FilesStoreConfig } from './files-store-settings.ts';

export type Edition = 'self-hosted' | 'hosted';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface DatabaseUrls {
  controlPlane: string;
  shared: string;
  tenant: string;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** null when no URL is configured: the service starts an embedded PostgreSQL under `dataDir`. */
  databaseUrls: DatabaseUrls | null;
  /** Where the three URLs came from, for messages: `DATABASE_URL`, the three `*_DATABASE_URL`s, or embedded. */
  databaseSource: 'embedded' | 'DATABASE_URL' | 'separate';
  dbPoolMax: number;
  dbStartupTimeoutMs: number;
  /** How long a request waits for a free database connection before it answers 503. */
  dbAcquireTimeoutMs: number;
  /** Longest a single SQL statement may run before it is cancelled and the request answers 503. */
  dbStatementTimeoutMs: number;
  /** Longest a statement of a search (a list with `q`) may run; it then answers 503 `statement_timeout`. */
  searchStatementTimeoutMs: number;
  /** Longest a statement of bulk work (imports, exports, retests) may run; it then answers 503 `statement_timeout`. */
  bulkStatementTimeoutMs: number;
  /** Heavy requests (searches, imports, exports) of one user that run at once; more wait their turn. */
  heavyRequestsPerUser: number;
  healthTimeoutMs: number;
  edition: Edition;
  /** Addresses (exact IPs or CIDR ranges) whose X-Forwarded-For, -Proto and -Host are believed. */
  trustProxy: string[];
  /** Origins (`https://app.example.com`) allowed to call the REST API from a browser; `*` for any; empty: CORS off. */
  corsAllowedOrigins: string[];
  /** Where multipart uploads are written while a request runs. */
  uploadTmpDir: string;
  logLevel: LogLevel;
  bodyLimitBytes: number;
  shutdownTimeoutMs: number;
  adminEmail: string | null;
  adminPassword: string | null;
  licenseFile: string | null;
  /** Extra Ed25519 public keys (base64 SPKI DER) trusted to sign licences, besides the vendor key. */
  licenseTrustedKeys: string[];
  evidenceMaxBytes: number;
  filesDir: string;
  /** Where stored files live: `FILES_STORE=local` (under `filesDir`, the default) or `s3` (the `S3_*` settings). */
  filesStore: FilesStoreConfig;
  rateLimitPerIp: number;
  rateLimitPerKey: number;
  rateLimitStore: 'memory' | 'postgres';
  buildSha: string | null;
  /**
   * Hosted: the PostgreSQL servers tenant databases may live on, `name=url,...` as written (parsed by
   * @service/tenancy's parseTenantServers).
   */
  tenantServers: string;
  /** Hosted: tenant pools open at once per process. */
  tenantMaxOpenPools: number;
  /** Hosted: connections per tenant pool. */
  tenantPoolMax: number;
  /** Hosted: a tenant pool without requests for this long is closed. */
  tenantPoolIdleMs: number;
  /** Hosted: how long a process reuses an organization's location and state. */
  tenantLookupCacheMs: number;
  /** Hosted: tenant databases migrated at once on start. */
  tenantMigrationConcurrency: number;
}

type Env = Record<string, string | undefined>;

interface Setting<T> {
  name: string;
  parse: (raw: string) => T;
  default: T;
  describe: string;
}

function integer(min: number, max: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw.trim())) throw new Error(`expected a whole number between ${min} and ${max}`);
    const n = Number(raw.trim());
    if (n < min || n > max) throw new Error(`expected a whole number between ${min} and ${max}`);
    return n;
  };
}

function oneOf<T extends string>(...values: T[]) {
  return (raw: string): T => {
    const v = raw.trim() as T;
    if (!values.includes(v)) throw new Error(`expected one of ${values.join(', ')}`);
    return v;
  };
}

function postgresUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error('expected a URL such as postgres://user:password@host:5432/service');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error(`expected a postgres:// URL, got the scheme ${url.protocol}`);
  }
  return raw.trim();
}

function list(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function ipList(raw: string): string[] {
  const items = list(raw);
  for (const item of items) {
    if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(item)) throw new Error(`"${item}" is not an IP address or CIDR range`);
  }
  return items;
}

function originList(raw: string): string[] {
  const items = list(raw);
  if (items.includes('*')) {
    if (items.length > 1) throw new Error('use either * alone or a list of origins');
    return ['*'];
  }
  for (const item of items) {
    let url: URL | null = null;
    try {
      url = new URL(item);
    } catch {
      // reported below
    }
    if (
      !url ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      url.origin !== item.replace(/\/$/, '').toLowerCase()
    ) {
      throw new Error(`"${item}" is not an origin such as https://app.example.com (scheme, host and port only)`);
    }
  }
  return items.map((i) => i.replace(/\/$/, '').toLowerCase());
}

function email(raw: string): string {
  const v = raw.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(v)) throw new Error('expected an email address');
  return v;
}

function text(raw: string): string {
  return raw;
}

const MB = 1024 * 1024;

/**
 * Reads and validates settings. Precedence: defaults < `.env` file < environment.
 * The only place that reads the process environment is `main`, which passes it here.
 */
export function loadConfig(env: Env, options: { cwd?: string; envFile?: string | null } = {}): Config {
  const cwd = options.cwd ?? process.cwd();
  const envFile = options.envFile === undefined ? path.join(cwd, '.env') : options.envFile;
  // Why lines that are not settings are left out: the service has always read .env that way; the
  // installer, which reads the same file with the same reader, names them.
  const fileValues: Env =
    envFile && existsSync(envFile) ? Object.fromEntries(parseEnvFile(readFileSync(envFile, 'utf8')).values) : {};
  const merged: Env = { ...fileValues, ...env };

  function read<T>(setting: Setting<T>): T {
    const raw = merged[setting.name];
    if (raw === undefined || raw.trim() === '') return setting.default;
    try {
      return setting.parse(raw);
    } catch (err) {
      // Why: the value itself may be a secret (a password, a URL with credentials), so only the name is shown.
      throw new ConfigError(setting.name, `${(err as Error).message} (${setting.describe})`);
    }
  }

  const dataDir = path.resolve(
    cwd,
    read({ name: 'DATA_DIR', parse: text, default: './data', describe: 'data directory' }),
  );
  const databaseUrl = read<string | null>({
    name: 'DATABASE_URL',
    parse: postgresUrl,
    default: null,
    describe: 'one PostgreSQL URL; the three database names are derived from its database name',
  });
  const separate = {
    controlPlane: read<string | null>({
      name: 'CONTROL_PLANE_DATABASE_URL',
      parse: postgresUrl,
      default: null,
      describe: 'control plane PostgreSQL URL',
    }),
    shared: read<string | null>({
      name: 'SHARED_DATABASE_URL',
      parse: postgresUrl,
      default: null,
      describe: 'shared PostgreSQL URL',
    }),
    tenant: read<string | null>({
      name: 'TENANT_DATABASE_URL',
      parse: postgresUrl,
      default: null,
      describe: 'tenant PostgreSQL URL',
    }),
  };
  const separateCount = Object.values(separate).filter(Boolean).length;
  if (databaseUrl && separateCount > 0) {
    throw new ConfigError('DATABASE_URL', 'set either DATABASE_URL or the three *_DATABASE_URL settings, not both');
  }
  if (separateCount > 0 && separateCount < 3) {
    const missing = Object.entries(separate)
      .filter(([, v]) => !v)
      .map(
        ([k]) =>
          ({
            controlPlane: 'CONTROL_PLANE_DATABASE_URL',
            shared: 'SHARED_DATABASE_URL',
            tenant: 'TENANT_DATABASE_URL',
          })[k],
      );
    throw new ConfigError(missing[0]!, 'set all three *_DATABASE_URL settings, or DATABASE_URL alone');
  }
  let databaseUrls: DatabaseUrls | null = null;
  let databaseSource: Config['databaseSource'] = 'embedded';
  if (databaseUrl) {
    databaseUrls = deriveDatabaseUrls(databaseUrl);
    databaseSource = 'DATABASE_URL';
  } else if (separateCount === 3) {
    databaseUrls = separate as DatabaseUrls;
    databaseSource = 'separate';
  }

  const adminPassword = read<string | null>({
    name: 'SERVICE_ADMIN_PASSWORD',
    parse: text,
    default: null,
    describe: 'first administrator password',
  });
  if (adminPassword !== null && adminPassword.length < 12) {
    throw new ConfigError('SERVICE_ADMIN_PASSWORD', 'must be at least 12 characters long');
  }

  const filesDir = path.resolve(
    cwd,
    read({
      name: 'FILES_DIR',
      parse: text,
      default: path.join(dataDir, 'files'),
      describe: 'file storage directory',
    }),
  );

  return {
    port: read({ name: 'PORT', parse: integer(0, 65535), default: 3000, describe: 'HTTP port' }),
    host: read({ name: 'HOST', parse: text, default: '0.0.0.0', describe: 'address to listen on' }),
    dataDir,
    databaseUrls,
    databaseSource,
    dbPoolMax: read({
      name: 'DB_POOL_MAX',
      parse: integer(1, 500),
      default: 10,
      describe: 'connections per database pool',
    }),
    dbStartupTimeoutMs: read({
      name: 'DB_STARTUP_TIMEOUT_MS',
      parse: integer(0, 3_600_000),
      default: 60_000,
      describe: 'how long to retry reaching the databases at start',
    }),
    dbAcquireTimeoutMs: read({
      name: 'DB_ACQUIRE_TIMEOUT_MS',
      parse: integer(100, 600_000),
      default: 5_000,
      describe: 'how long a request waits for a database connection before answering 503',
    }),
    dbStatementTimeoutMs: read({
      name: 'DB_STATEMENT_TIMEOUT_MS',
      parse: integer(100, 3_600_000),
      default: 15_000,
      describe: 'longest a single SQL statement may run before the request answers 503',
    }),
    searchStatementTimeoutMs: read({
      name: 'SEARCH_STATEMENT_TIMEOUT_MS',
      parse: integer(1, 3_600_000),
      default: 5_000,
      describe: 'longest a statement of a search may run before it answers 503 statement_timeout',
    }),
    bulkStatementTimeoutMs: read({
      name: 'BULK_STATEMENT_TIMEOUT_MS',
      parse: integer(1, 3_600_000),
      default: 300_000,
      describe: 'longest a statement of an import or export may run before it answers 503 statement_timeout',
    }),
    heavyRequestsPerUser: read({
      name: 'HEAVY_REQUESTS_PER_USER',
      parse: integer(1, 100),
      default: 2,
      describe: 'searches, imports and exports of one user that run at once (more wait their turn)',
    }),
    healthTimeoutMs: read({
      name: 'HEALTH_TIMEOUT_MS',
      parse: integer(50, 60_000),
      default: 1_500,
      describe: 'timeout of each health check query',
    }),
    edition: read<Edition>({
      name: 'SERVICE_EDITION',
      parse: oneOf('self-hosted', 'hosted'),
      default: 'self-hosted',
      describe: 'edition',
    }),
    trustProxy: read({
      name: 'TRUST_PROXY',
      parse: ipList,
      default: [] as string[],
      describe: 'comma-separated proxy addresses or CIDR ranges',
    }),
    corsAllowedOrigins: read({
      name: 'CORS_ALLOWED_ORIGINS',
      parse: originList,
      default: [] as string[],
      describe: 'comma-separated origins allowed to call the REST API from a browser, or *',
    }),
    uploadTmpDir: path.resolve(
      cwd,
      read({
        name: 'UPLOAD_TMP_DIR',
        parse: text,
        default: tmpdir(),
        describe: 'directory for uploads while a request runs',
      }),
    ),
    logLevel: read<LogLevel>({
      name: 'LOG_LEVEL',
      parse: oneOf('debug', 'info', 'warn', 'error', 'silent'),
      default: 'info',
      describe: 'log level',
    }),
    bodyLimitBytes: read({
      name: 'BODY_LIMIT_BYTES',
      parse: integer(1024, 512 * MB),
      default: 16 * MB,
      describe: 'largest accepted JSON request body',
    }),
    shutdownTimeoutMs: read({
      name: 'SHUTDOWN_TIMEOUT_MS',
      parse: integer(0, 600_000),
      default: 15_000,
      describe: 'how long to let in-flight requests finish on SIGTERM',
    }),
    adminEmail: read<string | null>({
      name: 'SERVICE_ADMIN_EMAIL',
      parse: email,
      default: null,
      describe: 'first administrator email',
    }),
    adminPassword,
    licenseFile: read<string | null>({
      name: 'LICENSE_FILE',
      parse: (raw) => path.resolve(cwd, raw),
      default: null,
      describe: 'path of the licence file',
    }),
    licenseTrustedKeys: read({
      name: 'LICENSE_TRUSTED_KEYS',
      parse: list,
      default: [] as string[],
      describe: 'extra licence signing public keys',
    }),
    evidenceMaxBytes: read({
      name: 'EVIDENCE_MAX_BYTES',
      parse: integer(1024, 100 * MB),
      default: 10 * MB,
      describe: 'largest evidence image',
    }),
    filesDir,
    filesStore: readFilesStore(merged, filesDir),
    rateLimitPerIp: read({
      name: 'RATE_LIMIT_PER_IP',
      parse: integer(1, 10_000_000),
      default: 120,
      describe: 'REST requests per minute per client IP',
    }),
    rateLimitPerKey: read({
      name: 'RATE_LIMIT_PER_KEY',
      parse: integer(1, 10_000_000),
      default: 600,
      describe: 'REST requests per minute per API key',
    }),
    rateLimitStore: read<'memory' | 'postgres'>({
      name: 'RATE_LIMIT_STORE',
      parse: oneOf('memory', 'postgres'),
      default: 'memory',
      describe: 'where rate-limit counters live: memory (one process) or postgres (shared by several processes)',
    }),
    buildSha: read<string | null>({ name: 'SERVICE_BUILD_SHA', parse: text, default: null, describe: 'source commit' }),
    tenantServers: read({
      name: 'TENANT_SERVERS',
      parse: text,
      default: '',
      describe: 'hosted: tenant servers, name=url separated by commas',
    }),
    tenantMaxOpenPools: read({
      name: 'TENANT_MAX_OPEN_POOLS',
      parse: integer(1, 10_000),
      default: 50,
      describe: 'hosted: tenant pools open at once per process',
    }),
    tenantPoolMax: read({
      name: 'TENANT_POOL_MAX',
      parse: integer(1, 100),
      default: 5,
      describe: 'hosted: connections per tenant pool',
    }),
    tenantPoolIdleMs: read({
      name: 'TENANT_POOL_IDLE_MS',
      parse: integer(1_000, 86_400_000),
      default: 300_000,
      describe: 'hosted: a tenant pool without requests for this long is closed',
    }),
    tenantLookupCacheMs: read({
      name: 'TENANT_LOOKUP_CACHE_MS',
      parse: integer(0, 600_000),
      default: 5_000,
      describe: "hosted: how long an organization's location and state are reused",
    }),
    tenantMigrationConcurrency: read({
      name: 'TENANT_MIGRATION_CONCURRENCY',
      parse: integer(1, 64),
      default: 4,
      describe: 'hosted: tenant databases migrated at once on start',
    }),
  };
}

/** `postgres://h/service` -> `service_control_plane`, `service_shared`, `service_tenant` on the same server. */
export function deriveDatabaseUrls(base: string): DatabaseUrls {
  const url = new URL(base);
  const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'service';
  const withName = (suffix: string): string => {
    const u = new URL(base);
    u.pathname = `/${encodeURIComponent(`${name}_${suffix}`)}`;
    return u.toString();
  };
  return { controlPlane: withName('control_plane'), shared: withName('shared'), tenant: withName('tenant') };
}
