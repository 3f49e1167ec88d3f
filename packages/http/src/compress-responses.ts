import { Stream } from 'node:stream';
import type { Middleware } from 'koa';
import compress from 'koa-compress';

/**
 * Text and JSON shrink well; DOCX, images and archives are compressed already, so compressing them
 * again costs CPU for nothing.
 */
const COMPRESSIBLE =
  /^(?:text\/[\w.+-]+|application\/(?:json|[\w.-]+\+json|javascript|xml|[\w.-]+\+xml|x-ndjson)|image\/svg\+xml)(?:;|$)/i;

export function isCompressibleType(contentType: string): boolean {
  return COMPRESSIBLE.test(contentType.trim());
}

/** Responses of at least 1 KB are compressed (gzip or brotli) when the client sends Accept-Encoding. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * Compresses large text and JSON answers (API lists, Markdown and CSV exports, the OpenAPI document)
 * for clients that accept it. JSON bodies are serialised here first, so the size threshold sees
 * their real length rather than compressing every small error body.
 */
export function compressResponses(): Middleware {
  const inner = compress({ threshold: COMPRESSION_THRESHOLD_BYTES, filter: isCompressibleType, deflate: false });
  return (ctx, next) =>
    inner(ctx, async () => {
      await next();
      const body = ctx.body;
      if (
        body !== null &&
        typeof body === 'object' &&
        !Buffer.isBuffer(body) &&
        !(body instanceof Stream) &&
        !(body instanceof Uint8Array)
      ) {
        ctx.body = JSON.stringify(body);
        ctx.type = 'application/json; charset=utf-8';
      }
    });
}
