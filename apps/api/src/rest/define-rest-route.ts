import type { Context } from 'koa';
import type { TSchema } from 'typebox';
import { defineRoute, UnauthenticatedError, type RouteDefinition, type RouteInput } from '@service/http';
import type { AppContext } from '../app-context.ts';
import type { RestPrincipal } from './rest-pipeline.ts';

type StaticOr<T, D> = T extends TSchema ? import('typebox').Static<T> : D;

/** What a REST handler receives: the validated request plus who is calling, typed. */
export type RestRouteInput<P, Q, B> = RouteInput<
  StaticOr<P, Record<string, never>>,
  StaticOr<Q, Record<string, never>>,
  StaticOr<B, undefined>
> & {
  principal: RestPrincipal;
};

export interface RestRouteDefinition<
  P extends TSchema | undefined,
  Q extends TSchema | undefined,
  B extends TSchema | undefined,
> extends Omit<RouteDefinition<P, Q, B>, 'handler' | 'security'> {
  handler(ctx: Context, input: RestRouteInput<P, Q, B>): Promise<void> | void;
}

/**
 * The authenticated principal of a REST request, set by the REST pipeline before any route runs.
 * The one place that reads it from Koa's untyped state.
 */
export function restPrincipalOf(ctx: Context): RestPrincipal {
  const principal = ctx.state.principal as RestPrincipal | undefined;
  // Why: unreachable behind the pipeline; a route mounted outside /rest/v1 by mistake fails closed.
  if (!principal) throw new UnauthenticatedError();
  return principal;
}

/** A route under /rest/v1: API-key security, and the principal handed to the handler as a typed input. */
export function defineRestRoute<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
>(app: AppContext, route: RestRouteDefinition<P, Q, B>): void {
  defineRoute<P, Q, B>(app.router, app.registry, app.routeDefaults, {
    ...route,
    security: 'apiKey',
    handler: (ctx, input) => route.handler(ctx, { ...input, principal: restPrincipalOf(ctx) }),
  });
}
