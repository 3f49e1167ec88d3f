import type { Context, Middleware } from 'koa';
import type { Static, TSchema } from 'typebox';
import type { SessionPrincipal } from '@service/auth';
import { defineRoute, UnauthenticatedError, type RouteDefinition, type RouteInput } from '@service/http';
import type { AppContext } from '../app-context.ts';
import { requireSession, sameOriginGuard } from '../identity/session-guard.ts';
import type { RestPrincipal } from './rest-pipeline.ts';

/**
 * Who may call a route: an API key (under /rest/v1, through the REST pipeline), a signed-in
 * session, a signed-in administrator, or anyone.
 */
export type RouteAccess = 'apiKey' | 'session' | 'admin' | 'public';

type StaticOr<T, D> = T extends TSchema ? Static<T> : D;

/** What the handler is given besides the validated request, by the route's access. */
export type AccessInput<A extends RouteAccess> = A extends 'apiKey'
  ? { principal: RestPrincipal }
  : A extends 'session' | 'admin'
    ? { session: SessionPrincipal }
    : Record<never, never>;

export type AppRouteInput<A extends RouteAccess, P, Q, B> = RouteInput<
  StaticOr<P, Record<string, never>>,
  StaticOr<Q, Record<string, never>>,
  StaticOr<B, undefined>
> &
  AccessInput<A>;

export interface AppRouteDefinition<
  A extends RouteAccess,
  P extends TSchema | undefined,
  Q extends TSchema | undefined,
  B extends TSchema | undefined,
> extends Omit<RouteDefinition<P, Q, B>, 'handler' | 'security' | 'adminOnly' | 'before' | 'crossSiteCheck'> {
  access: A;
  /**
   * A public route that changes state from a browser (sign-in): refuse cross-site requests as
   * session routes do. Session and administrator routes always do, for methods other than GET.
   */
  sameOrigin?: boolean;
  /** With `heavy`: whether this request is (a list only with `q`); default every request. */
  heavyWhen?: (ctx: Context) => boolean;
  handler(ctx: Context, input: AppRouteInput<A, P, Q, B>): Promise<void> | void;
}

/**
 * The REST principal of a request, set by the REST pipeline before any route runs. The one place
 * that reads it from Koa's untyped state.
 */
export function restPrincipalOf(ctx: Context): RestPrincipal {
  const principal = ctx.state.principal as RestPrincipal | undefined;
  // Why: unreachable behind the pipeline; a route mounted outside /rest/v1 by mistake fails closed.
  if (!principal) throw new UnauthenticatedError();
  return principal;
}

/** The session `requireSession` resolved for this request. */
function sessionOfRequest(ctx: Context): SessionPrincipal {
  const session = ctx.state.session as SessionPrincipal | null | undefined;
  if (!session) throw new UnauthenticatedError('Sign in first.');
  return session;
}

/**
 * The one way to declare a route of the service: REST, session, administrator or public. The
 * access decides the checks that run before the body is read (session, role, same origin), what
 * the handler receives (the API key's principal or the session, typed), and how the OpenAPI
 * document describes the operation; `cost` is what one call counts against the rate limits.
 */
export function defineAppRoute<
  A extends RouteAccess,
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
>(app: AppContext, route: AppRouteDefinition<A, P, Q, B>): void {
  const signedIn = route.access === 'session' || route.access === 'admin';
  const before: Middleware[] = [];
  if (signedIn || route.sameOrigin) before.push(sameOriginGuard());
  if (signedIn) before.push(requireSession(app.sessionOf, route.access === 'admin' ? 'admin' : undefined));
  if (route.heavy) {
    const inTurn = app.heavyRequests.middleware((ctx) => {
      const who = route.access === 'apiKey' ? restPrincipalOf(ctx) : sessionOfRequest(ctx);
      return `${who.organizationId}:${who.userId}`;
    });
    const when = route.heavyWhen;
    before.push((ctx, next) => (when && !when(ctx) ? next() : inTurn(ctx, next)));
  }
  const accessInput = (ctx: Context): AccessInput<RouteAccess> =>
    route.access === 'apiKey'
      ? { principal: restPrincipalOf(ctx) }
      : signedIn
        ? { session: sessionOfRequest(ctx) }
        : {};
  const { access: _access, sameOrigin, heavyWhen: _heavyWhen, ...definition } = route;
  defineRoute<P, Q, B>(app.router, app.registry, app.routeDefaults, {
    ...definition,
    security: route.access === 'apiKey' ? 'apiKey' : signedIn ? 'session' : 'none',
    adminOnly: route.access === 'admin',
    crossSiteCheck: sameOrigin || undefined,
    before,
    handler: (ctx, input) => route.handler(ctx, { ...input, ...accessInput(ctx) } as AppRouteInput<A, P, Q, B>),
  });
  if (route.cost && route.cost > 1)
    app.routeCosts.set(route.method, route.path.replace(/\{(\w+)\}/g, ':$1'), {
      cost: route.cost,
      notModified: route.notModifiedCost,
    });
}
