import Router from '@koa/router';
import Koa from 'koa';
import { DocxPdfConverter } from '@service/docx';
import { ApiKeyRepository, SessionRepository, UserRepository } from '@service/auth';
import { isDatabaseUnavailableError } from '@service/db';
import {
  absoluteLocation,
  answerOptions,
  answerUnrouted,
  clientIp,
  compressResponses,
  conditionalGet,
  corsPolicy,
  errorMiddleware,
  ipRateLimitKey,
  OpenApiRegistry,
  rateLimit,
  requestLog,
  resolveExternalOrigin,
  UnavailableError,
} from '@service/http';
import type { AppContext, AppDeps } from './app-context.ts';
import { FileStoreStatus } from './files/file-store-status.ts';
import { translateConstraintError } from './rest/translate-constraint-error.ts';
import { registerApiKeyRoutes } from './identity/api-key-routes.ts';
import { allowCreatedClients } from './identity/created-client-allow-list.ts';
import { registerAuthRoutes } from './identity/auth-routes.ts';
import { createLoginThrottle } from './identity/login-throttle.ts';
import { createSessionResolver } from './identity/session-guard.ts';
import { createTenantOf } from './tenancy/tenant-of.ts';
import { registerUserAdminRoutes } from './identity/user-admin-routes.ts';
import { registerResources } from './resources/register-resources.ts';
import { createWorkspaceRepositories } from './resources/workspace-repositories.ts';
import { createWorkspaceServices } from './resources/workspace-services.ts';
import { REST_PREFIX, restPipeline } from './rest/rest-pipeline.ts';
import { HeavyRequests } from './rest/heavy-requests.ts';
import { RouteCosts } from './rest/route-costs.ts';
import { registerApiDocsRoutes } from './system/api-docs-routes.ts';
import { registerFavicon } from './system/favicon.ts';
import { registerHealthRoutes } from './system/health-routes.ts';
import { registerWebApp } from './workspace/web-app-routes.ts';
import { registerWorkspacePages } from './workspace/workspace-pages.ts';

/** `/api/health` and `/api/version`: polled by monitors and the installer, with a budget of their own. */
export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/api/health', '/api/version']);
/** Requests per minute per client address to the health and version endpoints: 100 a second. */
export const HEALTH_REQUESTS_PER_MINUTE = 6000;

export interface App {
  koa: Koa;
  registry: OpenApiRegistry;
  repositories: AppContext['repositories'];
  services: AppContext['services'];
  /** The file store's health, which housekeeping checks. */
  fileStore: FileStoreStatus;
  /** Stops what the app runs besides requests (PDF conversions); call on shutdown. */
  close(): Promise<void>;
}

/** Builds the Koa app from its dependencies. No globals: tests build as many as they like. */
export function createApp(deps: AppDeps): App {
  const koa = new Koa({ proxy: false });
  const registry = new OpenApiRegistry();
  const router = new Router();
  const cp = deps.dbs.controlPlane;
  const sessions = new SessionRepository(cp);
  const identity = {
    users: new UserRepository(cp),
    apiKeys: new ApiKeyRepository(cp, { logger: deps.logger }),
    sessions,
    loginThrottle: createLoginThrottle(deps.rateLimitStore),
  };
  // Why: self-hosted has one tenant database; hosted maps organizations to theirs through the
  // control plane. Handlers only ever use the handle leased here, never deps.dbs.tenant directly.
  const tenantOf = createTenantOf(deps.tenants);
  const pdf = deps.pdf ?? new DocxPdfConverter();
  const repositories = createWorkspaceRepositories({
    files: deps.files,
    evidenceMaxBytes: deps.config.evidenceMaxBytes,
    onBackgroundError: (event, err) =>
      deps.logger.warn(event, { error: { name: (err as Error)?.name, message: (err as Error)?.message } }),
    onClientCreated: allowCreatedClients(identity.apiKeys),
  });
  const fileStore = new FileStoreStatus(deps.files.store, deps.logger);
  const app: AppContext = {
    deps,
    fileStore,
    router,
    registry,
    routeDefaults: { bodyLimitBytes: deps.config.bodyLimitBytes, uploadDir: deps.config.uploadTmpDir },
    routeCosts: new RouteCosts(router),
    heavyRequests: new HeavyRequests(deps.config.heavyRequestsPerUser),
    identity,
    repositories,
    services: createWorkspaceServices(repositories, {
      pdf,
      build: deps.build,
      bulkStatementMs: deps.config.bulkStatementTimeoutMs,
    }),
    tenantOf,
    sessionOf: createSessionResolver(sessions),
  };

  koa.use(async (ctx, next) => {
    ctx.state.clientIp = clientIp(ctx, deps.config.trustProxy);
    await next();
  });
  koa.use(resolveExternalOrigin(deps.config.trustProxy));
  koa.use(absoluteLocation());
  koa.use(requestLog(deps.logger));
  koa.use(
    errorMiddleware(deps.logger, [
      (err) => fileStore.httpErrorOf(err),
      (err) => (isDatabaseUnavailableError(err) ? new UnavailableError(undefined, err) : null),
      translateConstraintError,
    ]),
  );
  koa.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  });
  koa.use(compressResponses());
  // CORS only when CORS_ALLOWED_ORIGINS is set; otherwise no CORS header is ever sent.
  const cors = corsPolicy({
    allowedOrigins: deps.config.corsAllowedOrigins,
    prefixes: [REST_PREFIX, '/api/rest-docs/openapi'],
  });
  if (cors) koa.use(cors);
  koa.use(answerOptions(router));
  // Why: the public endpoints query the databases or send a large document; an anonymous flood must
  // not load them. The OpenAPI document has a budget of its own per client address, as large as
  // the REST one.
  koa.use(
    rateLimit({
      store: deps.rateLimitStore,
      prefix: 'public-ip',
      limit: deps.config.rateLimitPerIp,
      key: (ctx) => (ctx.path === '/api/rest-docs/openapi' ? ipRateLimitKey(ctx.state.clientIp ?? ctx.ip) : null),
      logger: deps.logger,
    }),
  );
  // Why a separate, much larger budget for health and version: monitors, the container health
  // check and the installer's wait for a new version all poll them, often from one address; a
  // 429 there reads as an outage (a monitor at 20 Hz is 1,200 requests a minute). The budget still
  // bounds what one address can make the databases do.
  koa.use(
    rateLimit({
      store: deps.rateLimitStore,
      prefix: 'health-ip',
      limit: Math.max(HEALTH_REQUESTS_PER_MINUTE, deps.config.rateLimitPerIp),
      key: (ctx) => (HEALTH_PATHS.has(ctx.path) ? ipRateLimitKey(ctx.state.clientIp ?? ctx.ip) : null),
      logger: deps.logger,
    }),
  );
  koa.use(
    restPipeline({
      apiKeys: identity.apiKeys,
      sessionOf: app.sessionOf,
      tenantOf,
      store: deps.rateLimitStore,
      perIp: deps.config.rateLimitPerIp,
      perKey: deps.config.rateLimitPerKey,
      edition: deps.config.edition,
      currentLicense: deps.currentLicense,
      cost: (ctx) => app.routeCosts.costOf(ctx),
      deferredCost: (ctx) => app.routeCosts.deferredCostOf(ctx),
      logger: deps.logger,
    }),
  );
  koa.use(conditionalGet({ prefix: REST_PREFIX }));

  registerHealthRoutes(app);
  registerApiDocsRoutes(app);
  registerFavicon(app);
  registerAuthRoutes(app);
  registerApiKeyRoutes(app);
  registerUserAdminRoutes(app);
  registerResources(app);
  registerWorkspacePages(app);
  registerWebApp(app);

  koa.use(router.routes());
  // A known path with another method: 405 with Allow; anything else: 404. Both as JSON errors.
  koa.use(answerUnrouted(router));
  // Why: Koa would otherwise print every error a second time to stderr.
  koa.silent = true;
  return {
    koa,
    registry,
    repositories: app.repositories,
    services: app.services,
    fileStore,
    close: async () => pdf.close(),
  };
}
