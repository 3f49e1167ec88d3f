export {
  TenancyError,
  TenantUnavailableError,
  TenantRetainedError,
  OrganizationNotFoundError,
  TenantCapacityError,
  UnknownTenantServerError,
} from './tenancy-error.ts';
export type { TenancyErrorCode } from './tenancy-error.ts';
export {
  parseTenantServers,
  withDefaultTenantServer,
  tenantDatabaseUrl,
  redactUrl,
  DEFAULT_TENANT_SERVER,
} from './tenant-servers.ts';
export type { TenantServer } from './tenant-servers.ts';
export {
  tenantTopology,
  resolveTenantUrl,
  isConfiguredTenant,
  connectionUrlOf,
  CONFIGURED_TENANT_DATABASE,
} from './tenant-topology.ts';
export type { TenantTopology } from './tenant-topology.ts';
export { tenantDatabaseName, isTenantDatabaseName } from './tenant-database-name.ts';
export { ORGANIZATION_SLUG, slugOfOrganizationName } from './organization-slug.ts';
export {
  OrganizationRepository,
  ORGANIZATION_STATES,
  ORGANIZATION_PLANS,
  PROVISIONING_STEPS,
} from './organization-repository.ts';
export type {
  Organization,
  OrganizationPlan,
  OrganizationState,
  ProvisioningStep,
  StateCause,
  TenantLocation,
} from './organization-repository.ts';
export { TenantRouter, DEFAULT_TENANT_ROUTER_SETTINGS } from './tenant-router.ts';
export type { TenantLease, TenantRouterOptions, TenantRouterSettings, TenantRouterStats } from './tenant-router.ts';
export { provisionOrganization } from './provision-organization.ts';
export { deprovisionOrganization } from './deprovision-organization.ts';
export { listOrganizations } from './list-organizations.ts';
export type {
  ProvisionOrganizationDeps,
  ProvisionOrganizationInput,
  ProvisionOrganizationResult,
} from './provision-organization.ts';
export { migrateAllTenants } from './migrate-all-tenants.ts';
export type { MigrateAllTenantsResult, TenantMigrationOutcome } from './migrate-all-tenants.ts';
export { migrateTenantDatabase, tenantMigrationConfig, describeTenantFailure } from './tenant-migrations.ts';
export { checkTenantServers } from './check-tenant-servers.ts';
export type { TenantServerChecks } from './check-tenant-servers.ts';
