import { loadConfig } from '@service/config';
import { createKnex } from '@service/db';
import { createJsonLogger, MemoryRateLimitStore } from '@service/http';
import { TenantRouter } from '@service/tenancy';
import { createApp } from '../app.ts';
import { readBuildInfo } from '../build-info.ts';
import { storedFilesOf } from '../files/open-stored-files.ts';
import { openApiDocumentOf } from './api-docs-routes.ts';

/** Where the placeholder databases point: nothing listens there, and nothing connects while the app is only built. */
const NOWHERE = 'postgres://build:build@127.0.0.1:1/openapi';

/**
 * The OpenAPI document the service publishes at `/api/rest-docs/openapi`, built from the routes'
 * declarations without a database or a running server: for tools that generate clients from it
 * (`@service/client`) and tests that compare routes with it. Building the app registers every
 * route; the placeholder database handles are never queried and are closed before returning.
 */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({ DATABASE_URL: NOWHERE }, { envFile: null });
  const db = createKnex(NOWHERE, 1);
  try {
    const build = readBuildInfo('unknown');
    const app = createApp({
      config,
      dbs: { controlPlane: db, shared: db, tenant: db },
      logger: createJsonLogger('silent'),
      build,
      currentLicense: () => null,
      rateLimitStore: new MemoryRateLimitStore(),
      tenants: new TenantRouter({ edition: 'self-hosted', controlPlane: db, configuredTenant: db }),
      files: storedFilesOf(config),
    });
    return openApiDocumentOf({ registry: app.registry, deps: { build } });
  } finally {
    await db.destroy();
  }
}
