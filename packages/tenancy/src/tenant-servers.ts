import { TenancyError, UnknownTenantServerError } from './tenancy-error.ts';

/**
 * A PostgreSQL server that holds tenant databases: its name (what the control plane records) and its URL without a
 * database.
 */
export interface TenantServer {
  name: string;
  url: string;
}

/**
 * The server of the configured tenant database (TENANT_DATABASE_URL, DATABASE_URL or the embedded
 * server). Self-hosted's one organization lives there; hosted may provision there too.
 */
export const DEFAULT_TENANT_SERVER = 'default';

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const EXAMPLE = 'TENANT_SERVERS="eu1=postgres://user:password@db1:5432,eu2=postgres://user:password@db2:5432"';

function invalid(message: string): TenancyError {
  return new TenancyError('invalid_tenant_servers', `${message}; expected ${EXAMPLE}`);
}

/** The URL with its password replaced by `***`, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

/**
 * Parses TENANT_SERVERS: `name=url` entries separated by commas or new lines. Names are lower-case
 * letters, digits, `-` and `_` (they are stored in the control plane, so renaming one means updating
 * its organizations). URLs are `postgres://` URLs of a server, without a database name. Messages
 * never repeat a URL, which holds a password. An empty setting is no servers.
 */
export function parseTenantServers(raw: string): TenantServer[] {
  const servers: TenantServer[] = [];
  const entries = raw
    .split(/[,\n]/)
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const seenEndpoints = new Map<string, string>();
  entries.forEach((entry, index) => {
    const at = `entry ${index + 1}`;
    const eq = entry.indexOf('=');
    if (eq <= 0) throw invalid(`${at} has no name (write name=postgres://...)`);
    const name = entry.slice(0, eq).trim();
    const value = entry.slice(eq + 1).trim();
    if (!NAME.test(name))
      throw invalid(
        `${at}: the server name "${name.slice(0, 40)}" must start with a lower-case ` +
          `letter and hold only a-z, 0-9, - and _ (at most 32 characters)`,
      );
    if (name === DEFAULT_TENANT_SERVER)
      throw invalid(
        `${at}: the name "default" is reserved for the server of the configured tenant ` +
          `database (TENANT_DATABASE_URL or DATABASE_URL); choose another name`,
      );
    if (servers.some((s) => s.name === name)) throw invalid(`the server name "${name}" appears twice`);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      // Why not the value: it holds the password. A raw comma in a password splits the entry; say so.
      throw invalid(`server "${name}": the value is not a URL (percent-encode , = and @ in passwords as %2C %3D %40)`);
    }
    if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
      throw invalid(`server "${name}": expected a postgres:// URL, got the scheme ${url.protocol}`);
    if (!url.hostname) throw invalid(`server "${name}": the URL has no host`);
    if (url.pathname !== '' && url.pathname !== '/') {
      throw invalid(
        `server "${name}": the URL names a database ` +
          `(${decodeURIComponent(url.pathname).slice(0, 64)}); leave it out, each ` +
          `organization's database name is added to it`,
      );
    }
    const endpoint = `${url.hostname}:${url.port || '5432'}`;
    const other = seenEndpoints.get(endpoint);
    if (other)
      throw invalid(
        `servers "${other}" and "${name}" point at the same host and port (${endpoint}); name each server once`,
      );
    seenEndpoints.set(endpoint, name);
    url.pathname = '';
    servers.push({ name, url: url.toString().replace(/\/$/, '') });
  });
  return servers;
}

/**
 * The configured servers plus `default`, the server of the configured tenant database
 * (`configuredTenantUrl` is that database's URL; its database name is dropped).
 */
export function withDefaultTenantServer(servers: readonly TenantServer[], configuredTenantUrl: string): TenantServer[] {
  const url = new URL(configuredTenantUrl);
  url.pathname = '';
  return [
    { name: DEFAULT_TENANT_SERVER, url: url.toString().replace(/\/$/, '') },
    ...servers.filter((s) => s.name !== DEFAULT_TENANT_SERVER),
  ];
}

/** The URL of one database on a named server; UnknownTenantServerError when the name is not configured. */
export function tenantDatabaseUrl(servers: readonly TenantServer[], server: string, database: string): string {
  const found = servers.find((s) => s.name === server);
  if (!found)
    throw new UnknownTenantServerError(
      server,
      servers.map((s) => s.name).filter((n) => n !== DEFAULT_TENANT_SERVER),
    );
  const url = new URL(found.url);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}
