import type { Context, Middleware } from 'koa';
import compose from 'koa-compose';
import type { Knex } from 'knex';
import {
  licenseAllows,
  SESSION_COOKIE,
  type ApiKeyRepository,
  type KeyPrincipal,
  type KeyScope,
  type License,
  type SessionPrincipal,
} from '@service/auth';
import type { Edition } from '@service/config';
import {
  BEARER_CHALLENGE,
  externalOriginOf,
  ForbiddenError,
  ipRateLimitKey,
  rateLimit,
  UnauthenticatedError,
  type RateLimitStore,
} from '@service/http';

/**
 * What a REST handler runs as: an API key (its owner's current role, the key's scope and client
 * allow-list) or a signed-in session of the workspace (the user's current role; no key, so no
 * scope and no allow-list), and the organization's tenant database (leased for the request).
 */
export interface RestPrincipal extends Omit<KeyPrincipal, 'keyId' | 'scope'> {
  /** The API key; null for a signed-in session. */
  keyId: string | null;
  /** The key's scope; null for a signed-in session, whose role alone decides. */
  scope: KeyScope | null;
  tenant: Knex;
}

/**
 * Who an idempotency record and a rate-limit budget belong to: the API key, or for a session its
 * user (every session of one user shares them, so a retry from a reloaded page still replays).
 */
export function callerIdOf(principal: RestPrincipal): string {
  return principal.keyId ?? principal.userId;
}

export const REST_PREFIX = '/rest/v1';

/** RFC 9110: the auth scheme is case-insensitive (`bearer` works); one or more spaces before the token. */
const BEARER = /^Bearer +([^\s]{1,512}) *$/i;

type TenantOf = (ctx: Context, organizationId: string) => Promise<Knex>;

function authenticateKey(apiKeys: ApiKeyRepository, tenantOf: TenantOf): Middleware {
  return async (ctx, next) => {
    const match = BEARER.exec(ctx.get('Authorization'));
    // Why: one message for missing, malformed, unknown, expired, revoked and deactivated owners,
    // so an answer never tells a guesser which of them it was.
    const principal = match ? await apiKeys.authenticate(match[1]!) : null;
    if (!principal)
      throw new UnauthenticatedError(
        'Missing or invalid API key. Send Authorization: Bearer service_sk_..., or sign in to the workspace.',
        { challenge: BEARER_CHALLENGE },
      );
    ctx.state.principal = {
      ...principal,
      tenant: await tenantOf(ctx, principal.organizationId),
    } satisfies RestPrincipal;
    await next();
  };
}

/**
 * A signed-in session calling /rest/v1 from the workspace, checked as the session routes are: a
 * state-changing request must carry `X-Requested-With` (a browser adds it cross-site only after a
 * CORS preflight), and a request whose `Origin` is another site is refused, reads too, even when
 * CORS_ALLOWED_ORIGINS lists it: CORS is for keys. Why reads pass without the header: the cookie is
 * SameSite=Strict and no answer is readable cross-origin, and `<img src>` of evidence must work.
 */
function assertSameOriginSession(ctx: Context): void {
  const origin = ctx.get('Origin');
  if (origin && origin.toLowerCase() !== externalOriginOf(ctx))
    throw new ForbiddenError('cross_site_request', 'Cross-site requests are not accepted with a session.');
  if (!SAFE_METHODS.has(ctx.method) && !ctx.get('X-Requested-With'))
    throw new ForbiddenError(
      'cross_site_request',
      'Send the header X-Requested-With with state-changing requests of a signed-in session.',
    );
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a signed-in session runs as on the REST API (and when the workspace checks what it may see). */
export function sessionPrincipal(session: SessionPrincipal, tenant: Knex): RestPrincipal {
  return {
    keyId: null,
    scope: null,
    allowedClientIds: [],
    userId: session.userId,
    organizationId: session.organizationId,
    role: session.role,
    plan: session.plan,
    tenantDatabase: session.tenantDatabase,
    tenant,
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
 *
 * A request without `Authorization` that carries a valid session cookie runs as that session
 * instead: same-origin checks, then the per-user budget (RATE_LIMIT_PER_KEY a minute, shared by
 * all of the user's sessions), then licence or plan. Why no per-IP budget for it: the session is
 * already proven (its token is 256 random bits), the per-IP budget exists to throttle guessing
 * before authentication, and people of one office behind one address would starve each other.
 * A cookie that resolves to no session falls through to the key path (and its per-IP budget).
 */
export function restPipeline(options: {
  apiKeys: ApiKeyRepository;
  sessionOf: (ctx: Context) => Promise<SessionPrincipal | null>;
  tenantOf: TenantOf;
  store: RateLimitStore;
  perIp: number;
  perKey: number;
  edition: Edition;
  currentLicense: () => License | null;
  /** What a request costs against the limits (its route's declared cost; SPEC "Limits"). */
  cost: (ctx: Context) => number;
  /** What it costs besides once the route must do its work (a conditional export that is not 304). */
  deferredCost?: (ctx: Context) => number;
  logger?: { warn(event: string, fields?: Record<string, unknown>): void };
}): Middleware {
  const perCaller = rateLimit({
    store: options.store,
    prefix: 'key',
    limit: options.perKey,
    key: (ctx) => callerIdOf(ctx.state.principal as RestPrincipal),
    cost: options.cost,
    deferredCost: options.deferredCost,
    logger: options.logger,
  });
  const gate = licenseGate(options.edition, options.currentLicense);
  const keyChain = compose([
    rateLimit({
      store: options.store,
      prefix: 'ip',
      limit: options.perIp,
      key: (ctx) => ipRateLimitKey(ctx.state.clientIp ?? ctx.ip),
      cost: options.cost,
      deferredCost: options.deferredCost,
      logger: options.logger,
    }),
    authenticateKey(options.apiKeys, options.tenantOf),
    perCaller,
    gate,
  ]);
  const sessionChain = compose([perCaller, gate]);
  return async (ctx, next) => {
    if (ctx.path !== REST_PREFIX && !ctx.path.startsWith(`${REST_PREFIX}/`)) return next();
    const session = !ctx.get('Authorization') && ctx.cookies.get(SESSION_COOKIE) ? await options.sessionOf(ctx) : null;
    if (!session) return keyChain(ctx, next);
    assertSameOriginSession(ctx);
    ctx.state.principal = sessionPrincipal(session, await options.tenantOf(ctx, session.organizationId));
    return sessionChain(ctx, next);
  };
}
