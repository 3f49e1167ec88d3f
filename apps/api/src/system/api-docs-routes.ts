import { readFile } from 'node:fs/promises';
import path from 'node:path';
// Why the module itself and not the package's index: the index also loads the 1.5 MB browser bundle,
// 11 MB of memory in every process for a path.
import absolutePath from 'swagger-ui-dist/absolute-path.js';
import { Type } from 'typebox';
import { NotFoundError } from '@service/http';
import type { AppContext } from '../app-context.ts';
import { defineAppRoute } from '../rest/define-app-route.ts';

// Why: self-hosted installs are offline. Swagger UI is served from our own copy of swagger-ui-dist,
// with no CDN, no web fonts and the online spec validator switched off.
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>service REST API reference</title>
<link rel="stylesheet" href="/api-docs/assets/swagger-ui.css">
<style>body{margin:0;font-family:system-ui,sans-serif}.topbar{display:none}</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api-docs/assets/swagger-ui-bundle.js"></script>
<script src="/api-docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/api-docs/assets/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/api/rest-docs/openapi',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'BaseLayout'
});
`;

const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
  "script-src 'self'; connect-src 'self'; font-src 'self'; object-src 'none'; " +
  "frame-ancestors 'none'; base-uri 'none'";

const OpenApiDocument = Type.Object(
  {
    openapi: Type.String(),
    info: Type.Object({ title: Type.String(), version: Type.String() }),
    paths: Type.Object({}),
    components: Type.Object({}),
  },
  { description: 'An OpenAPI 3.1 document.' },
);

/**
 * The OpenAPI document of this app, built once. Building it checks every declaration (examples
 * against their schemas), so the app builds it as it starts and a bad declaration fails there.
 */
export function openApiDocumentOf(app: {
  registry: AppContext['registry'];
  deps: Pick<AppContext['deps'], 'build'>;
}): Record<string, unknown> {
  return app.registry.document({
    title: 'service REST API',
    version: app.deps.build.version,
    description:
      'The REST API of the security-reporting workspace. Authenticate with a personal ' +
      'API key: `Authorization: Bearer service_sk_...`. Errors are `{"error": {"code", ' +
      '"message", "details"?}}`; `details` is always a list of `{path, message}`. Every ' +
      'response carries `X-Request-Id`; REST responses carry `X-RateLimit-Limit`, ' +
      '`X-RateLimit-Remaining` and `X-RateLimit-Reset`. Text never contains U+0000 (NUL): ' +
      'every text field states it as a pattern, and a request with one answers 400. A ' +
      'TypeScript client generated from this document ships with the service as `@service/client` ' +
      '(docs/api-guide.md, "Client package").',
    contact: {
      name: 'The administrators of this installation: they create users, keep the licence and see the service log',
    },
    license: { name: 'Proprietary: use is governed by your service licence', identifier: 'LicenseRef-Proprietary' },
  });
}

export function registerApiDocsRoutes(app: AppContext): void {
  const dist = absolutePath();
  const cache = new Map<string, Buffer>();
  let documentText: string | null = null;

  defineAppRoute(app, {
    method: 'get',
    path: '/api/rest-docs/openapi',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    description:
      'The OpenAPI 3.1 document of the REST API, generated from the schemas that ' +
      'validate requests. `/api-docs` shows it as an interactive reference. Public; ' +
      'limited per client address like the REST API (`RATE_LIMIT_PER_IP` per minute).',
    tags: ['System'],
    access: 'public',
    usesDatabase: false,
    rateLimited: true,
    responses: { 200: { description: 'The document.', schema: OpenApiDocument } },
    handler(ctx) {
      ctx.set('Cache-Control', 'no-cache');
      documentText ??= JSON.stringify(openApiDocumentOf(app));
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = documentText;
    },
  });

  app.registry.addUndocumentedRoute(
    'GET',
    '/api-docs',
    'the interactive reference page (HTML) that shows this document',
  );
  app.router.get('/api-docs', (ctx) => {
    ctx.set('Content-Security-Policy', CSP);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });

  app.registry.addUndocumentedRoute('GET', '/api-docs/assets/{file}', 'static files of the interactive reference page');
  app.router.get('/api-docs/assets/:file', async (ctx) => {
    const file = ctx.params.file!;
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'public, max-age=3600');
    if (file === 'init.js') {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = INIT;
      return;
    }
    const type = ASSETS[file];
    if (!type) throw new NotFoundError();
    let bytes = cache.get(file);
    if (!bytes) {
      bytes = await readFile(path.join(dist, file));
      cache.set(file, bytes);
    }
    ctx.type = type;
    ctx.body = bytes;
  });
}
