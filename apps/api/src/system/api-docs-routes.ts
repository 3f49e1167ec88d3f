import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { absolutePath } from 'swagger-ui-dist';
import { NotFoundError } from '@service/http';
import type { AppContext } from '../app-context.ts';

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

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; font-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'";

export function registerApiDocsRoutes(app: AppContext): void {
  const dist = absolutePath();
  const cache = new Map<string, Buffer>();

  app.router.get('/api/rest-docs/openapi', (ctx) => {
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = app.registry.document({
      title: 'service REST API',
      version: app.deps.build.version,
      description: 'The REST API of the security-reporting workspace. Authenticate with a personal API key: `Authorization: Bearer service_sk_...`.',
    });
  });

  app.router.get('/api-docs', (ctx) => {
    ctx.set('Content-Security-Policy', CSP);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });

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
