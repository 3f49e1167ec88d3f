import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { NotFoundError } from '@service/http';
import type { AppContext } from '../app-context.ts';

/** The only files served from ./assets; anything else under /workspace/assets is a 404. */
const ASSETS = new Map<string, string>([
  ['workspace.css', 'text/css; charset=utf-8'],
  ['workspace.js', 'text/javascript; charset=utf-8'],
]);

const ASSET_DIR = new URL('./assets/', import.meta.url);

export function registerWorkspaceAssets(app: AppContext): void {
  const cache = new Map<string, { bytes: Buffer; etag: string }>();

  app.registry.addUndocumentedRoute(
    'GET',
    '/workspace/assets/{name}',
    'the stylesheet and script of the workspace pages',
  );
  app.router.get('/workspace/assets/:name', async (ctx) => {
    const name = ctx.params.name!;
    const type = ASSETS.get(name);
    if (!type) throw new NotFoundError(`No workspace asset named ${name}.`);
    let asset = cache.get(name);
    if (!asset) {
      const bytes = await readFile(new URL(name, ASSET_DIR));
      asset = { bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"` };
      cache.set(name, asset);
    }
    ctx.set('X-Content-Type-Options', 'nosniff');
    // Why: asset URLs carry no version, so browsers revalidate each time; the ETag keeps that cheap.
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = type;
    ctx.etag = asset.etag;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = asset.bytes;
  });
}
