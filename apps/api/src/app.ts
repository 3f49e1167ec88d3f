import Router from '@koa/router';
import Koa from 'koa';
import { isDatabaseUnavailableError } from '@service/db';
import { errorMiddleware, NotFoundError, OpenApiRegistry, requestLog, UnavailableError } from '@service/http';
import type { AppContext, AppDeps } from './app-context.ts';
import { registerApiDocsRoutes } from './system/api-docs-routes.ts';
import { registerHealthRoutes } from './system/health-routes.ts';

export interface App {
  koa: Koa;
  registry: OpenApiRegistry;
}

/** Builds the Koa app from its dependencies. No globals: tests build as many as they like. */
export function createApp(deps: AppDeps): App {
  const koa = new Koa({ proxy: false });
  const registry = new OpenApiRegistry();
  const router = new Router();
  const app: AppContext = {
    deps,
    router,
    registry,
    routeDefaults: { bodyLimitBytes: deps.config.bodyLimitBytes },
    sessionOf: async () => null,
  };

  koa.use(requestLog(deps.logger));
  koa.use(
    errorMiddleware(deps.logger, [(err) => (isDatabaseUnavailableError(err) ? new UnavailableError(undefined, err) : null)]),
  );
  koa.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  });

  registerHealthRoutes(app);
  registerApiDocsRoutes(app);

  koa.use(router.routes());
  koa.use(router.allowedMethods({ throw: true }));
  koa.use((ctx) => {
    if (ctx.status === 404 && ctx.body === undefined) throw new NotFoundError(`No route for ${ctx.method} ${ctx.path}.`);
  });
  // Why: Koa would otherwise print every error a second time to stderr.
  koa.silent = true;
  return { koa, registry };
}
