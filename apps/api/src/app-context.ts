import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Knex } from 'knex';
import type { ApiKeyRepository, License, SessionPrincipal, SessionRepository, UserRepository } from '@service/auth';
import type { Config } from '@service/config';
import type { Databases } from '@service/db';
import type { DocxPdfConverter } from '@service/docx';
import type { JsonLogger, OpenApiRegistry, RateLimitStore, RouteDefaults } from '@service/http';
import type { StoredFiles } from '@service/storage';
import type { TenantRouter } from '@service/tenancy';
import type { BuildInfo } from './build-info.ts';
import type { FileStoreStatus } from './files/file-store-status.ts';
import type { LoginThrottle } from './identity/login-throttle.ts';
import type { HeavyRequests } from './rest/heavy-requests.ts';
import type { RouteCosts } from './rest/route-costs.ts';
import type { WorkspaceRepositories } from './resources/workspace-repositories.ts';
import type { WorkspaceServices } from './resources/workspace-services.ts';

export interface AppDeps {
  config: Config;
  dbs: Pick<Databases, 'controlPlane' | 'shared' | 'tenant'>;
  logger: JsonLogger;
  build: BuildInfo;
  /** The licence in force (self-hosted), re-read by the caller when it changes. */
  currentLicense(): License | null;
  rateLimitStore: RateLimitStore;
  /** Each organization's tenant database (self-hosted: always `dbs.tenant`). The caller closes it on shutdown. */
  tenants: TenantRouter;
  /** Where stored files live (evidence, Word templates): opened and checked before the app is built. */
  files: StoredFiles;
  /** DOCX to PDF conversion; default one of its own, closed by `App.close`. */
  pdf?: DocxPdfConverter;
}

export interface Identity {
  users: UserRepository;
  apiKeys: ApiKeyRepository;
  sessions: SessionRepository;
  loginThrottle: LoginThrottle;
}

/** What each group of routes receives to register itself. */
export interface AppContext {
  deps: AppDeps;
  router: Router;
  registry: OpenApiRegistry;
  routeDefaults: RouteDefaults;
  /** What each route costs against the rate limits, from the routes' declarations. */
  routeCosts: RouteCosts;
  /** Each user's heavy requests (searches, imports, exports), a few at a time (routes declared `heavy`). */
  heavyRequests: HeavyRequests;
  identity: Identity;
  /** The tenant workspace's repositories (they take the tenant handle per call). */
  repositories: WorkspaceRepositories;
  /** Imports and exports, built on the repositories. */
  services: WorkspaceServices;
  /**
   * The request's organization's tenant database, held until the response has been sent (also a
   * streamed one). The only way handlers reach tenant data: there is no way to name another
   * organization's database. Answers 401 for a closed organization and 503 for an unavailable one.
   */
  tenantOf(ctx: Context, organizationId: string): Promise<Knex>;
  /** The signed-in session of a request, or null. */
  sessionOf(ctx: Context): Promise<SessionPrincipal | null>;
  /** The file store's health as requests and checks meet it (logged, and shown on the administration page). */
  fileStore: FileStoreStatus;
}
