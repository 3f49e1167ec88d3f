import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Context } from 'koa';
import { NotFoundError } from '@service/http';
import type { AppContext } from '../app-context.ts';

/** The only files served from ./assets; anything else under /workspace/assets is a 404. */
const ASSETS = new Map<string, string>([
  ['workspace.css', 'text/css; charset=utf-8'],
  ['workspace.js', 'text/javascript; charset=utf-8'],
]);

const ASSET_DIR = new URL('./assets/', import.meta.url);

export function registerWorkspaceAssets(app: AppContext): void {
  const cache = new Map<string, Asset>();

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
      asset = assetOf(await readFile(new URL(name, ASSET_DIR)));
      cache.set(name, asset);
    }
    // Why no-cache: asset URLs carry no version, so browsers revalidate each time; the ETag keeps that cheap.
    sendAsset(ctx, asset, type, 'no-cache');
  });
}

export interface Asset {
  bytes: Buffer;
  etag: string;
}

/** A file to serve, with its ETag (a hash of the bytes). */
export function assetOf(bytes: Buffer): Asset {
  return { bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"` };
}

/** Answers a static asset: its type, nosniff, the caching asked for, and 304 when the ETag still holds. */
export function sendAsset(ctx: Context, asset: Asset, type: string, cacheControl: string): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', cacheControl);
  ctx.type = type;
  ctx.etag = asset.etag;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = asset.bytes;
}
