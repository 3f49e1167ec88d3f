import type { Context, Middleware } from 'koa';
import compose from 'koa-compose';
import type { Knex } from 'knex';
import { licenseAllows, type ApiKeyRepository, type KeyPrincipal, type License } from '@service/auth';
import type { Edition } from '@service/config';
import {
  BEARER_CHALLENGE,
  ForbiddenError,
  ipRateLimitKey,
  rateLimit,
  UnauthenticatedError,
  type RateLimitStore,
} from '@service/http';

/**
 * What a REST handler runs as: the key, its owner's current role, and the organization's tenant database (leased for
 * the request).
 */
export interface RestPrincipal extends KeyPrincipal {
  tenant: Knex;
}

export const REST_PREFIX = '/rest/v1';

/** RFC 9110: the auth scheme is case-insensitive (`bearer` works); one or more spaces before the token. */
const BEARER = /^Bearer +([^\s]{1,512}) *$/i;

function authenticateKey(
  apiKeys: ApiKeyRepository,
  tenantOf: (ctx: Context, organizationId: string) => Promise<Knex>,
): Middleware {
  return async (ctx, next) => {
    const match = BEARER.exec(ctx.get('Authorization'));
    // Why: one message for missing, malformed, unknown, expired, revoked and deactivated owners,
    // so an answer never tells a guesser which of them it was.
    const principal = match ? await apiKeys.authenticate(match[1]!) : null;
    if (!principal)
      throw new UnauthenticatedError('Missing or invalid API key. Send Authorization: Bearer service_sk_...', {
        challenge: BEARER_CHALLENGE,
      });
    ctx.state.principal = {
      ...principal,
      tenant: await tenantOf(ctx, principal.organizationId),
    } satisfies RestPrincipal;
    await next();
  };
}

function licenseGate(edition: Edition, currentLicense: () => License | null): Middleware {
  return async (ctx, next) => {
    const principal = ctx.state.principal as RestPrincipal;
    const allowed =
      edition === 'hosted'
        ? principal.plan === 'business' || principal.plan === 'enterprise'
        : licenseAllows(currentLicense(), 'api', new Date());
    if (!allowed) {
      throw new ForbiddenError(
        'api_not_licensed',
        edition === 'hosted'
          ? 'The REST API needs the Business plan or above.'
          : 'The REST API needs a licence with the API feature; install a licence file (LICENSE_FILE).',
      );
    }
    await next();
  };
}

/**
 * Everything under /rest/v1 passes, in order: per-IP rate limit (before any key lookup, so key
 * guessing is throttled), API key authentication, per-key rate limit, licence or plan.
 */
export function restPipeline(options: {
  apiKeys: ApiKeyRepository;
  tenantOf: (ctx: Context, organizationId: string) => Promise<Knex>;
  store: RateLimitStore;
  perIp: number;
  perKey: number;
  edition: Edition;
  currentLicense: () => License | null;
  /** What a request costs against the limits (its route's declared cost; SPEC "Limits"). */
  cost: (ctx: Context) => number;
  logger?: { warn(event: string, fields?: Record<string, unknown>): void };
}): Middleware {
  const chain = compose([
    rateLimit({
      store: options.store,
      prefix: 'ip',
      limit: options.perIp,
      key: (ctx) => ipRateLimitKey(ctx.state.clientIp ?? ctx.ip),
      cost: options.cost,
      logger: options.logger,
    }),
    authenticateKey(options.apiKeys, options.tenantOf),
    rateLimit({
      store: options.store,
      prefix: 'key',
      limit: options.perKey,
      key: (ctx) => (ctx.state.principal as RestPrincipal).keyId,
      cost: options.cost,
      logger: options.logger,
    }),
    licenseGate(options.edition, options.currentLicense),
  ]);
  return async (ctx, next) => {
    if (ctx.path === REST_PREFIX || ctx.path.startsWith(`${REST_PREFIX}/`)) return chain(ctx, next);
    return next();
  };
}
