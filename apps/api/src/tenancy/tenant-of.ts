import type { Context } from 'koa';
import type { Knex } from 'knex';
import { BEARER_CHALLENGE, type HttpError, UnauthenticatedError, UnavailableError } from '@service/http';
import { TenancyError, type TenantLease, type TenantRouter } from '@service/tenancy';
import { REST_PREFIX } from '../rest/rest-pipeline.ts';

/**
 * What a request gets when its organization's workspace cannot be opened. Why generic messages:
 * the tenancy errors name organization ids and migration failures, which are the operator's.
 */
function tenancyHttpError(err: TenancyError, rest: boolean): HttpError {
  if (err.code === 'tenant_retained' || err.code === 'organization_not_found') {
    return new UnauthenticatedError(
      "This organization's workspace is closed.",
      rest ? { challenge: BEARER_CHALLENGE } : {},
    );
  }
  return new UnavailableError("This organization's workspace is unavailable right now; try again shortly.", err);
}

/**
 * Leases the organization's tenant database from the router for the rest of the request: the
 * lease is released when the response is closed (sent, streamed to the end, or cut off), so an idle
 * pool is never closed under a streaming export.
 */
export function createTenantOf(tenants: TenantRouter): (ctx: Context, organizationId: string) => Promise<Knex> {
  return async (ctx, organizationId) => {
    let lease: TenantLease;
    try {
      lease = await tenants.acquire(organizationId);
    } catch (err) {
      if (err instanceof TenancyError)
        throw tenancyHttpError(err, ctx.path === REST_PREFIX || ctx.path.startsWith(`${REST_PREFIX}/`));
      throw err;
    }
    if (ctx.res.destroyed) lease.release();
    else ctx.res.once('close', lease.release);
    return lease.db;
  };
}
