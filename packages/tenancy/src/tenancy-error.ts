/**
 * Codes of the errors this package throws. The API maps them (see docs/scaling.md, "Wiring"):
 * `tenant_unavailable` and `tenant_capacity` to 503, `tenant_retained` and `organization_not_found`
 * to 401 on the REST API (the key or session no longer opens a workspace) and 404 elsewhere.
 */
export type TenancyErrorCode =
  | 'organization_not_found'
  | 'tenant_unavailable'
  | 'tenant_retained'
  | 'tenant_capacity'
  | 'unknown_tenant_server'
  | 'invalid_tenant_servers'
  | 'provisioning_failed'
  | 'provisioning_in_progress'
  | 'slug_taken'
  | 'router_closed';

/**
 * The one error class of tenancy, with a stable `code`. Why no HTTP `status`: this package is used
 * by the admin commands and start-up as much as by requests; the API decides the status.
 */
export class TenancyError extends Error {
  readonly code: TenancyErrorCode;

  constructor(code: TenancyErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TenancyError';
    this.code = code;
  }
}

/** The organization's tenant database is kept out of service (migration failed, being moved, still provisioning). */
export class TenantUnavailableError extends TenancyError {
  constructor(
    readonly organizationId: string,
    readonly state: 'provisioning' | 'unavailable',
    reason: string | null,
  ) {
    super(
      'tenant_unavailable',
      `The workspace of organization ${organizationId} is ` +
        `${state === 'provisioning' ? 'still being provisioned' : 'unavailable'}${reason ? ` (${reason})` : ''}; ` +
        `try again later.`,
    );
    this.name = 'TenantUnavailableError';
  }
}

/** The organization was deprovisioned: its data is kept, nobody works in it. */
export class TenantRetainedError extends TenancyError {
  constructor(readonly organizationId: string) {
    super('tenant_retained', `Organization ${organizationId} was deprovisioned; its workspace is retained but closed.`);
    this.name = 'TenantRetainedError';
  }
}

export class OrganizationNotFoundError extends TenancyError {
  constructor(readonly organizationId: string) {
    super('organization_not_found', `There is no organization ${organizationId}.`);
    this.name = 'OrganizationNotFoundError';
  }
}

/** Every open pool is held by a request and the cap on open pools was reached for longer than the wait allows. */
export class TenantCapacityError extends TenancyError {
  constructor(maxOpenPools: number, waitedMs: number) {
    super(
      'tenant_capacity',
      `All ${maxOpenPools} tenant pools (TENANT_MAX_OPEN_POOLS) were busy for ${waitedMs} ms; try again shortly.`,
    );
    this.name = 'TenantCapacityError';
  }
}

/** The control plane names a server the settings do not (TENANT_SERVERS was changed, or a typo on the command line). */
export class UnknownTenantServerError extends TenancyError {
  constructor(
    readonly server: string,
    known: readonly string[],
  ) {
    super(
      'unknown_tenant_server',
      `The tenant server "${server}" is not configured; TENANT_SERVERS names ` +
        `${known.length > 0 ? known.map((k) => `"${k}"`).join(', ') : 'no servers'} (and ` +
        `"default", the server of the configured tenant database).`,
    );
    this.name = 'UnknownTenantServerError';
  }
}
