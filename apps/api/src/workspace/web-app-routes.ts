import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { Context } from 'koa';
import type { SessionPrincipal } from '@service/auth';
import { NotFoundError } from '@service/http';
import type { AppContext } from '../app-context.ts';
import { sessionPrincipal } from '../rest/rest-pipeline.ts';
import { html } from './html-template.ts';
import { redirectPage, sendPage, WORKSPACE_CSP } from './page-shell.ts';
import { assetOf, sendAsset, type Asset } from './workspace-assets.ts';

/**
 * Where the built workspace app is (apps/web/scripts/build-web.mjs): apps/web/dist from the
 * sources, `<bundle>/web/dist` in the bundle of `npm start` and the release (this module is then
 * part of apps/api/src/main.js, three levels below the bundle's root).
 */
const DIST = new URL('../../../web/dist/', import.meta.url);

interface Manifest {
  digest: string;
  script: string;
  stylesheet: string | null;
}

/** The app's paths: one page each, drawn in the browser; `{id}` paths answer 404 when the row is not visible. */
const APP_PAGES: ReadonlyArray<{ path: string; visible?: 'client' | 'project' | 'report' | 'finding' }> = [
  { path: '/reports' },
  { path: '/reports/{id}', visible: 'report' },
  { path: '/reports/{id}/{section}', visible: 'report' },
  { path: '/reports/{id}/findings/{findingId}', visible: 'finding' },
  { path: '/clients' },
  { path: '/clients/{id}', visible: 'client' },
  { path: '/projects' },
  { path: '/projects/{id}', visible: 'project' },
  { path: '/library' },
  { path: '/library/{kind}' },
  { path: '/trash' },
];

const ASSET_NAME = /^[\w-]+\.(js|css)$/;

let manifestCache: { mtimeMs: number; manifest: Manifest } | null = null;

async function readManifest(): Promise<Manifest | null> {
  const file = new URL('manifest.json', DIST);
  const info = await stat(file).catch(() => null);
  if (!info) return null;
  if (manifestCache?.mtimeMs === info.mtimeMs) return manifestCache.manifest;
  const manifest = JSON.parse(await readFile(file, 'utf8')) as Manifest;
  manifestCache = { mtimeMs: info.mtimeMs, manifest };
  return manifest;
}

/**
 * The workspace CSP, with a fresh nonce for the style elements the editor (CodeMirror) creates
 * for its own look: still no inline style attribute, no 'unsafe-inline', no 'unsafe-eval'.
 */
function appCsp(nonce: string): string {
  return WORKSPACE_CSP.replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`);
}

function renderAppShell(session: SessionPrincipal, manifest: Manifest, nonce: string) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>service</title>
<link rel="icon" href="data:,">
${manifest.stylesheet ? html`<link rel="stylesheet" href="/app/assets/${manifest.stylesheet}">` : ''}
<script type="module" src="/app/assets/${manifest.script}"></script>
</head>
<body data-user-id="${session.userId}" data-user-name="${session.name}" data-role="${session.role}" data-style-nonce="${nonce}">
<div id="app"><noscript>The workspace needs JavaScript. The REST API and the API keys page work without it.</noscript></div>
</body>
</html>
`;
}

/** Whether the row a path names is visible to the session, as the REST API would answer. */
async function isVisible(app: AppContext, ctx: Context, session: SessionPrincipal, kind: string): Promise<boolean> {
  const principal = sessionPrincipal(session, await app.tenantOf(ctx, session.organizationId));
  const r = app.repositories;
  const id = kind === 'finding' ? ctx.params.findingId! : ctx.params.id!;
  if (kind === 'finding') {
    const finding = await r.findings.find(principal.tenant, principal, id);
    return finding !== null && (await r.reports.find(principal.tenant, principal, ctx.params.id!)) !== null;
  }
  const repository = kind === 'client' ? r.clients : kind === 'project' ? r.projects : r.reports;
  return (await repository.find(principal.tenant, principal, id)) !== null;
}

/**
 * The workspace app (apps/web): its pages, served with the same strict CSP as every workspace page
 * (no inline script or style), and its built assets under /app/assets with content-hashed names
 * (cached for a year). Visitors without a session are sent to sign in and back.
 */
export function registerWebApp(app: AppContext): void {
  for (const page of APP_PAGES) {
    app.registry.addUndocumentedRoute('GET', page.path, 'a page of the workspace app (HTML)');
    app.router.get(page.path.replace(/\{(\w+)\}/g, ':$1'), async (ctx) => {
      const session = await app.sessionOf(ctx);
      if (!session) return redirectPage(ctx, `/?next=${encodeURIComponent(ctx.path)}`);
      const manifest = await readManifest();
      if (!manifest) throw new NotFoundError('The workspace app is not built: run npm run build -w @service/web.');
      const visible = page.visible ? await isVisible(app, ctx, session, page.visible) : true;
      // Why the same page for a 404: the app shows the not-found page the REST API's 404 leads to.
      const nonce = randomBytes(16).toString('base64');
      sendPage(ctx, visible ? 200 : 404, renderAppShell(session, manifest, nonce), appCsp(nonce));
    });
  }

  const cache = new Map<string, Asset>();
  app.registry.addUndocumentedRoute(
    'GET',
    '/app/assets/{name}',
    'the built scripts and stylesheet of the workspace app',
  );
  app.router.get('/app/assets/:name', async (ctx) => {
    const name = ctx.params.name!;
    if (!ASSET_NAME.test(name)) throw new NotFoundError(`No workspace asset named ${name}.`);
    let asset = cache.get(name);
    if (!asset) {
      const bytes = await readFile(new URL(`assets/${name}`, DIST)).catch(() => null);
      if (!bytes) throw new NotFoundError(`No workspace asset named ${name}.`);
      asset = assetOf(bytes);
      cache.set(name, asset);
    }
    // Why immutable: the names carry a hash of the content; a new build has new names.
    const type = name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
    sendAsset(ctx, asset, type, 'public, max-age=31536000, immutable');
  });
}
