import { createHash } from 'node:crypto';
import { Stream } from 'node:stream';
import type { Middleware } from 'koa';

function isJsonValue(body: unknown): body is object {
  return (
    body !== null &&
    typeof body === 'object' &&
    !Buffer.isBuffer(body) &&
    !(body instanceof Stream) &&
    !(body instanceof Uint8Array)
  );
}

/**
 * A weak `ETag` on every 200 JSON answer to GET under `prefix`, and 304 with no body when the
 * request's `If-None-Match` names it. Weak, because compression changes the bytes but not the
 * meaning. Answers marked `Cache-Control: no-store` are left alone.
 */
export function conditionalJsonGet(options: { prefix: string }): Middleware {
  return async (ctx, next) => {
    await next();
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.status !== 200) return;
    if (ctx.path !== options.prefix && !ctx.path.startsWith(`${options.prefix}/`)) return;
    if (!isJsonValue(ctx.body) || /\bno-store\b/.test(ctx.response.get('Cache-Control'))) return;
    const text = JSON.stringify(ctx.body);
    // Why keep the string: Koa would serialise the object again to send it.
    ctx.body = text;
    ctx.type = 'application/json; charset=utf-8';
    ctx.etag = `W/"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
    if (ctx.fresh) {
      ctx.status = 304;
      ctx.body = null;
    }
  };
}
