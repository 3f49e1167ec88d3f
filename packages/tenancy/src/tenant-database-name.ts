const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The tenant database name of an organization: `tenant_` and its id without dashes (39 characters,
 * under PostgreSQL's 63). Derived from the id, never from the name a customer typed, so it is
 * always a plain identifier and never collides.
 */
export function tenantDatabaseName(organizationId: string): string {
  if (!UUID.test(organizationId))
    throw new TypeError(`organization id ${JSON.stringify(organizationId.slice(0, 64))} is not a UUID`);
  return `tenant_${organizationId.replace(/-/g, '').toLowerCase()}`;
}

/** True for names this package creates or accepts from the control plane: a plain lower-case identifier. */
export function isTenantDatabaseName(name: string): boolean {
  return DATABASE_NAME.test(name);
}
