import type { TSchema } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { defineAppRoute, type AppRouteDefinition, type AppRouteInput } from './define-app-route.ts';

export { restPrincipalOf } from './define-app-route.ts';

/** What a REST handler receives: the validated request plus who is calling, typed. */
export type RestRouteInput<P, Q, B> = AppRouteInput<'apiKey', P, Q, B>;

/** A route under /rest/v1: API-key security, and the principal handed to the handler as a typed input. */
export function defineRestRoute<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
>(app: AppContext, route: Omit<AppRouteDefinition<'apiKey', P, Q, B>, 'access'>): void {
  defineAppRoute<'apiKey', P, Q, B>(app, { ...route, access: 'apiKey' });
}
