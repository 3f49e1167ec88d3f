import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Config } from '@service/config';
import type { Databases } from '@service/db';
import type { JsonLogger, OpenApiRegistry, RouteDefaults } from '@service/http';
import type { BuildInfo } from './build-info.ts';

export interface AppDeps {
  config: Config;
  dbs: Pick<Databases, 'controlPlane' | 'shared' | 'tenant'>;
  logger: JsonLogger;
  build: BuildInfo;
}

export interface SessionPrincipal {
  userId: string;
  role: 'admin' | 'member' | 'viewer' | 'external';
}

/** What each group of routes receives to register itself. */
export interface AppContext {
  deps: AppDeps;
  router: Router;
  registry: OpenApiRegistry;
  routeDefaults: RouteDefaults;
  /** The signed-in session of a request, or null. */
  sessionOf(ctx: Context): Promise<SessionPrincipal | null>;
}
