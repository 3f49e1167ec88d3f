import type { Knex } from 'knex';
import {
  DEFAULT_TENANT_SERVER,
  tenantDatabaseUrl,
  withDefaultTenantServer,
  type TenantServer,
} from './tenant-servers.ts';
import { isTenantDatabaseName } from './tenant-database-name.ts';
import { TenancyError } from './tenancy-error.ts';

/** On server `default`, the database name that means "the configured tenant database itself". */
export const CONFIGURED_TENANT_DATABASE = 'default';

/** Where tenant databases can live: the named servers and the configured tenant database. */
export interface TenantTopology {
  /** Every server organizations may name, `default` (the configured tenant database's server) first. */
  servers: readonly TenantServer[];
  /** The configured tenant database (TENANT_DATABASE_URL, DATABASE_URL or embedded). */
  configuredTenantUrl: string;
}

/** The connection URL a knex handle made by @service/db's createKnex was opened with. */
export function connectionUrlOf(db: Knex): string {
  const connection = (db.client.config as Knex.Config).connection as string | { connectionString?: string } | undefined;
  const url = typeof connection === 'string' ? connection : connection?.connectionString;
  if (!url) throw new TypeError('the knex handle was not opened with a connection URL');
  return url;
}

/**
 * The topology from TENANT_SERVERS (as parsed by parseTenantServers) and the configured tenant
 * database handle (`dbs.tenant`), whose server becomes `default`.
 */
export function tenantTopology(servers: readonly TenantServer[], configuredTenant: Knex | string): TenantTopology {
  const configuredTenantUrl =
    typeof configuredTenant === 'string' ? configuredTenant : connectionUrlOf(configuredTenant);
  return { servers: withDefaultTenantServer(servers, configuredTenantUrl), configuredTenantUrl };
}

/** True for the organization(s) whose workspace is the configured tenant database. */
export function isConfiguredTenant(location: { tenantServer: string; tenantDatabase: string }): boolean {
  return location.tenantServer === DEFAULT_TENANT_SERVER && location.tenantDatabase === CONFIGURED_TENANT_DATABASE;
}

/** The URL of an organization's tenant database. */
export function resolveTenantUrl(
  topology: TenantTopology,
  location: { tenantServer: string; tenantDatabase: string },
): string {
  if (isConfiguredTenant(location)) return topology.configuredTenantUrl;
  // Why check again: the name goes into a URL; the control plane's CHECK constraint is one guard, this the second.
  if (!isTenantDatabaseName(location.tenantDatabase))
    throw new TenancyError(
      'unknown_tenant_server',
      `the tenant database name ${JSON.stringify(location.tenantDatabase.slice(0, 64))} is not a plain identifier`,
    );
  return tenantDatabaseUrl(topology.servers, location.tenantServer, location.tenantDatabase);
}
