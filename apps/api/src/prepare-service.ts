import { bootstrapOrganization, describeLicense, type License } from '@service/auth';
import type { Config } from '@service/config';
import { prepareDatabases, type Databases, type DatabaseTimeouts } from '@service/db';
import type { JsonLogger } from '@service/http';
import type { StoredFiles } from '@service/storage';
import {
  migrateAllTenants,
  parseTenantServers,
  TenantRouter,
  tenantTopology,
  type TenantTopology,
} from '@service/tenancy';
import type { BuildInfo } from './build-info.ts';
import { prepareWorkspaceLibrary } from './library/prepare-workspace-library.ts';
import { loadLicense } from './licensing/load-license.ts';

/** Hosted: the tenant servers of TENANT_SERVERS plus `default` (the configured tenant database's server). */
function hostedTopology(config: Config, dbs: Pick<Databases, 'tenant'>): TenantTopology | undefined {
  return config.edition === 'hosted' ? tenantTopology(parseTenantServers(config.tenantServers), dbs.tenant) : undefined;
}

/** The database time limits of the settings: every statement's, and the longest that searches and bulk work set. */
export function databaseTimeoutsOf(config: Config): DatabaseTimeouts {
  return {
    acquireTimeoutMs: config.dbAcquireTimeoutMs,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    longestStatementMs: Math.max(config.searchStatementTimeoutMs, config.bulkStatementTimeoutMs),
  };
}

/**
 * Everything between opening the databases and listening: refuse a downgrade, migrate, record
 * the version, create the organization and first administrator on a fresh install, load the
 * library and the licence; hosted: migrate every organization's tenant database. Returns the
 * tenant router requests use (the caller closes it). Shared by `main.ts`, the admin command and
 * the test harness.
 */
export async function prepareService(options: {
  config: Config;
  dbs: Pick<Databases, 'controlPlane' | 'shared' | 'tenant'>;
  embedded: boolean;
  logger: JsonLogger;
  build: BuildInfo;
  /** The file store (opened and checked by `openStoredFiles`): the library's Word templates go there. */
  files: StoredFiles;
}): Promise<{ license: License | null; tenants: TenantRouter }> {
  const { config, dbs, logger } = options;
  // Why first: a wrong TENANT_SERVERS is refused before anything is changed.
  const topology = hostedTopology(config, dbs);
  await prepareDatabases(dbs, options.build.version);
  const boot = await bootstrapOrganization(dbs.controlPlane, {
    adminEmail: config.adminEmail,
    adminPassword: config.adminPassword,
  });
  if (boot.createdAdmin?.generatedPassword) {
    // Why: the one secret ever logged, on purpose and once: without it nobody could sign in.
    logger.warn('first_administrator_created', {
      email: boot.createdAdmin.email,
      password: boot.createdAdmin.generatedPassword,
      message:
        'Sign in with this password and change it; it is not shown again. Set ' +
        'SERVICE_ADMIN_EMAIL and SERVICE_ADMIN_PASSWORD to choose them.',
    });
  } else if (boot.createdAdmin) {
    logger.info('first_administrator_created', { email: boot.createdAdmin.email });
  }
  await prepareWorkspaceLibrary({ config, dbs, logger, files: options.files, organizationId: boot.organizationId });
  const license = await loadLicense({
    licenseFile: config.licenseFile,
    trustedKeys: config.licenseTrustedKeys,
    embedded: options.embedded,
    controlPlane: dbs.controlPlane,
  });
  logger.info('license', { summary: describeLicense(license, new Date()) });
  if (topology) {
    // Why after the configured databases: a tenant whose migration fails is kept out of service
    // (and logged) without stopping the others or the process.
    const migrated = await migrateAllTenants({
      controlPlane: dbs.controlPlane,
      topology,
      concurrency: config.tenantMigrationConcurrency,
      logger,
    });
    logger.info('tenants_migrated', {
      tenants: migrated.outcomes.length,
      migrated: migrated.migrated,
      failed: migrated.failed,
    });
  }
  const tenants = new TenantRouter({
    edition: config.edition,
    controlPlane: dbs.controlPlane,
    configuredTenant: dbs.tenant,
    topology,
    settings: {
      maxOpenPools: config.tenantMaxOpenPools,
      poolMaxConnections: config.tenantPoolMax,
      poolIdleMs: config.tenantPoolIdleMs,
      lookupCacheMs: config.tenantLookupCacheMs,
    },
    timeouts: databaseTimeoutsOf(config),
    logger,
  });
  return { license, tenants };
}
