import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { Readable } from 'node:stream';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conditionalGet, ifNoneMatchHits } from './index.ts';

let server: Server;
let url: string;

beforeAll(async () => {
  const koa = new Koa();
  koa.use(conditionalGet({ prefix: '/api', streamedMaxBytes: 1000 }));
  koa.use((ctx) => {
    const size = Number(ctx.query.size ?? 10);
    if (ctx.path === '/api/stream') {
      ctx.type = 'text/csv; charset=utf-8';
      // In chunks of 100 bytes, as a CSV writer streams rows.
      ctx.body = Readable.from(
        Array.from({ length: Math.ceil(size / 100) }, (_, i) =>
          Buffer.alloc(Math.min(100, size - i * 100), 97 + (i % 26)),
        ),
      );
    } else if (ctx.path === '/api/tagged') {
      ctx.type = 'application/octet-stream';
      ctx.set('ETag', 'W/"from-inputs"');
      ctx.body = Buffer.from(String(Math.random()));
    } else if (ctx.path === '/api/no-store') {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { secret: true };
    } else if (ctx.path === '/outside') {
      ctx.body = { outside: true };
    } else {
      ctx.type = 'image/png';
      ctx.body = Buffer.from('png bytes');
    }
  });
  server = createServer(koa.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server?.close();
});

const get = async (path: string, etag?: string) => {
  const res = await fetch(`${url}${path}`, { headers: etag ? { 'if-none-match': etag } : {} });
  return { status: res.status, etag: res.headers.get('etag'), text: await res.text() };
};

describe('conditionalGet', () => {
  it('tags a streamed body it could read whole, and streams a larger one unchanged, without a tag', async () => {
    const small = await get('/api/stream?size=950');
    expect(small.etag).toMatch(/^W\/"/);
    expect(small.text.length).toBe(950);
    expect((await get('/api/stream?size=950', small.etag!)).status).toBe(304);
    const large = await get('/api/stream?size=5050');
    expect(large.status).toBe(200);
    expect(large.etag).toBeNull();
    expect(large.text).toBe(
      Array.from({ length: 51 }, (_, i) => String.fromCharCode(97 + (i % 26)).repeat(i === 50 ? 50 : 100)).join(''),
    );
  });

  it('keeps a tag the route set, gives stored bytes a strong one, and leaves no-store and other paths alone', async () => {
    expect(await get('/api/tagged', 'W/"from-inputs"')).toMatchObject({ status: 304, etag: 'W/"from-inputs"' });
    const png = await get('/api/image');
    expect(png.etag).toMatch(/^"[\w-]+"$/);
    expect((await get('/api/image', png.etag!)).status).toBe(304);
    expect((await get('/api/no-store')).etag).toBeNull();
    expect((await get('/outside')).etag).toBeNull();
  });
});

describe('ifNoneMatchHits', () => {
  it('compares weakly, reads lists and *, and never matches an empty header', () => {
    expect(ifNoneMatchHits('W/"a"', '"a"')).toBe(true);
    expect(ifNoneMatchHits('"a"', 'W/"a"')).toBe(true);
    expect(ifNoneMatchHits('"b", W/"a"', 'W/"a"')).toBe(true);
    expect(ifNoneMatchHits('*', '"a"')).toBe(true);
    expect(ifNoneMatchHits('"b"', '"a"')).toBe(false);
    expect(ifNoneMatchHits('', '"a"')).toBe(false);
  });
});
