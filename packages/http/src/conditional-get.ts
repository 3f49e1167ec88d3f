import { createHash } from 'node:crypto';
import { Readable, Stream } from 'node:stream';
import type { Context, Middleware } from 'koa';
import { isCompressibleType } from './compress-responses.ts';

/** Streamed downloads up to this size are read whole to get an ETag; larger ones are sent streamed, without one. */
export const STREAMED_ETAG_MAX_BYTES = 16 * 1024 * 1024;

function isJsonValue(body: unknown): body is object {
  return (
    body !== null &&
    typeof body === 'object' &&
    !Buffer.isBuffer(body) &&
    !(body instanceof Stream) &&
    !(body instanceof Uint8Array)
  );
}

function tagOf(bytes: string | Uint8Array, weak: boolean): string {
  const digest = createHash('sha256').update(bytes).digest('base64url').slice(0, 27);
  return weak ? `W/"${digest}"` : `"${digest}"`;
}

/** The opaque part of an entity tag, for the weak comparison `If-None-Match` uses (RFC 9110, 13.1.2). */
function opaque(tag: string): string {
  return tag.trim().replace(/^W\//, '');
}

/**
 * True when `If-None-Match` names the current tag (or is `*`). Why not Koa's `ctx.fresh`: it treats a
 * request with `Cache-Control: no-cache` as never fresh, and the fetch standard adds exactly that
 * header to every request that carries `If-None-Match` (Node's and browsers' `fetch`), so no
 * JavaScript client would ever get a 304. A client sending its validator asks whether it is still
 * current; `no-cache` only tells caches in between not to answer for us.
 */
export function ifNoneMatchHits(header: string, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const current = opaque(etag);
  return header.split(',').some((candidate) => opaque(candidate) === current);
}

/**
 * Reads a streamed body up to `max` bytes. Whole: its bytes. Larger: a stream that replays what was
 * read and then the rest, so the response goes out unchanged (and unbuffered from there on).
 */
async function readUpTo(body: Readable, max: number): Promise<{ bytes: Buffer } | { stream: Readable }> {
  const chunks: Buffer[] = [];
  let size = 0;
  const iterator = body[Symbol.asyncIterator]();
  for (;;) {
    const { value, done } = await iterator.next();
    if (done) return { bytes: Buffer.concat(chunks, size) };
    const chunk = typeof value === 'string' ? Buffer.from(value) : Buffer.from(value as Uint8Array);
    chunks.push(chunk);
    size += chunk.length;
    if (size > max) {
      async function* replay() {
        yield* chunks;
        for (;;) {
          const next = await iterator.next();
          if (next.done) return;
          yield next.value as Buffer;
        }
      }
      return { stream: Readable.from(replay(), { objectMode: false }) };
    }
  }
}

/** A response header as text; Koa answers undefined for one that is not set. */
function responseHeader(ctx: Context, name: string): string {
  return String(ctx.response.get(name) ?? '');
}

function answerConditionally(ctx: Context, etag: string): void {
  ctx.etag = etag;
  if (ifNoneMatchHits(ctx.get('If-None-Match'), etag)) {
    ctx.status = 304;
    ctx.body = null;
  }
}

/**
 * An `ETag` on every 200 answer to GET (and HEAD) under `prefix`, and 304 with no body when the
 * request's `If-None-Match` names it, whatever the request's `Cache-Control` says.
 * - JSON (a row, a list): weak, from the serialised text.
 * - A download (a Buffer, bytes or text: exports, images, templates): from its bytes; weak when
 *   the type may be compressed on the way out (text, JSON), strong otherwise (the bytes sent are
 *   exactly these).
 * - A streamed download (the CSV export): read up to STREAMED_ETAG_MAX_BYTES and tagged like a
 *   download; a larger one is sent streamed, without a tag.
 * - An answer the route tagged itself keeps its tag (a Word document differs byte for byte per
 *   render, so the export tags it by its inputs).
 * Answers marked `Cache-Control: no-store` are left alone.
 */
export function conditionalGet(options: { prefix: string; streamedMaxBytes?: number }): Middleware {
  const streamedMax = options.streamedMaxBytes ?? STREAMED_ETAG_MAX_BYTES;
  return async (ctx, next) => {
    await next();
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.status !== 200) return;
    if (ctx.path !== options.prefix && !ctx.path.startsWith(`${options.prefix}/`)) return;
    if (/\bno-store\b/.test(responseHeader(ctx, 'Cache-Control'))) return;
    const body: unknown = ctx.body;
    if (body === null || body === undefined) return;
    // A route that tagged its answer itself (a rendered document, whose bytes differ per render,
    // tagged by what it is made from): only the comparison is left to do.
    const own = responseHeader(ctx, 'ETag');
    if (own) {
      if (ifNoneMatchHits(ctx.get('If-None-Match'), own)) {
        ctx.status = 304;
        ctx.body = null;
      }
      return;
    }
    const weak = isCompressibleType(responseHeader(ctx, 'Content-Type'));
    if (isJsonValue(body)) {
      const text = JSON.stringify(body);
      // Why keep the string: Koa would serialise the object again to send it.
      ctx.body = text;
      ctx.type = 'application/json; charset=utf-8';
      answerConditionally(ctx, tagOf(text, true));
    } else if (typeof body === 'string' || body instanceof Uint8Array) {
      answerConditionally(ctx, tagOf(body, weak));
    } else if (body instanceof Readable) {
      const type = responseHeader(ctx, 'Content-Type');
      const read = await readUpTo(body, streamedMax);
      // Why set the type again: replacing the body makes Koa guess it from the new value.
      if ('stream' in read) ctx.body = read.stream;
      else {
        ctx.body = read.bytes;
        answerConditionally(ctx, tagOf(read.bytes, weak));
      }
      if (type) ctx.type = type;
    }
  };
}
