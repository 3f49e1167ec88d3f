// The HTTP conventions generic clients rely on (requests, fetch, urllib, generated clients,
// browsers): absolute Link URLs, auth scheme case, 405/OPTIONS with Allow, CORS, compression,
// ETag/304, merge-patch, and U+0000 refused naming the field.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from './support/http-client.ts';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let plain: TestApp;
let actor: Actor;
const clientIds: string[] = [];

beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: '127.0.0.1', CORS_ALLOWED_ORIGINS: 'https://app.example.com' });
  // Counted at one instant: a burst at a minute boundary of the real clock would get one more through.
  plain = await startTestApp({ RATE_LIMIT_PER_IP: '3' }, { rateLimitAt: Date.UTC(2026, 0, 1) });
  actor = await createActor(app, { role: 'admin', clientIds: [] });
  for (let i = 0; i < 30; i++) {
    const res = await actor.api.post('/clients', {
      name: `Client ${String(i).padStart(2, '0')} with a name long enough to make a list worth compressing`,
    });
    expect(res.status).toBe(201);
    clientIds.push(res.body.id);
  }
  await app.dbs.controlPlane('api_keys').where({ id: actor.keyId }).update({ client_ids: clientIds });
});
afterAll(async () => {
  await app?.stop();
  await plain?.stop();
});

/** node:http, so nothing (fetch's decompression, its Cache-Control on conditional requests) gets in the way. */
function raw(
  target: TestApp,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${target.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
const auth = () => ({ authorization: `Bearer ${actor.key}` });

describe('Link headers', () => {
  it('are absolute URLs a generic client can follow', async () => {
    const res = await actor.api.get('/clients?per_page=10&q=client');
    const next = /<([^>]+)>; rel="next"/.exec(res.headers.get('link')!)![1]!;
    expect(next).toBe(`${app.url}/rest/v1/clients?per_page=10&q=client&page=2`);
    const followed = await fetch(next, { headers: auth() });
    expect(followed.status).toBe(200);
    expect(followed.headers.get('x-page')).toBe('2');
  });

  it('use the scheme and host the client used, from a trusted proxy only', async () => {
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'reports.example.com' };
    const viaProxy = await actor.api.get('/clients?per_page=10', { headers: forwarded });
    expect(viaProxy.headers.get('link')).toContain(
      '<https://reports.example.com/rest/v1/clients?per_page=10&page=2>; rel="next"',
    );
    const other = await createActor(plain, { role: 'member' });
    await other.api.post('/clients', { name: 'A' });
    await other.api.post('/clients', { name: 'B' });
    const untrusted = await other.api.get('/clients?per_page=1', { headers: forwarded });
    expect(untrusted.headers.get('link')).toContain(`<${plain.url}/rest/v1/clients?per_page=1&page=2>; rel="next"`);
  });
});

describe('authentication', () => {
  it('accepts the scheme in any case and answers 401 with WWW-Authenticate: Bearer', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      expect(
        (await fetch(`${app.url}/rest/v1/clients`, { headers: { authorization: `${scheme} ${actor.key}` } })).status,
        scheme,
      ).toBe(200);
    }
    const missing = await httpClient(`${app.url}/rest/v1`).get('/clients');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="service"');
  });
});

describe('methods', () => {
  it('answers a wrong method on a known path with 405 and Allow', async () => {
    const res = await raw(app, 'PUT', '/rest/v1/clients', { ...auth(), 'content-type': 'application/json' }, '{}');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
    expect(JSON.parse(res.body.toString())).toMatchObject({ error: { code: 'method_not_allowed' } });
    const health = await raw(app, 'DELETE', '/api/health');
    expect(health.status).toBe(405);
    expect(health.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect((await raw(app, 'GET', '/rest/v1/nothing-here', auth())).status).toBe(404);
  });

  it('answers OPTIONS with Allow, without needing a key', async () => {
    const res = await raw(app, 'OPTIONS', `/rest/v1/clients/${clientIds[0]}`);
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe('GET, HEAD, PATCH, DELETE, OPTIONS');
    expect((await raw(app, 'OPTIONS', '/nothing-here')).status).toBe(404);
    // An unknown REST path is a 404 for callers with a key only (the key is checked first).
    expect((await raw(app, 'OPTIONS', '/rest/v1/nothing-here')).status).toBe(401);
  });
});

describe('CORS', () => {
  it('is off unless CORS_ALLOWED_ORIGINS is set: no CORS header at all', async () => {
    const other = await createActor(plain, { role: 'member' });
    const res = await raw(plain, 'GET', '/rest/v1/clients', {
      authorization: `Bearer ${other.key}`,
      origin: 'https://app.example.com',
    });
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const preflight = await raw(plain, 'OPTIONS', '/rest/v1/clients', {
      origin: 'https://app.example.com',
      'access-control-request-method': 'POST',
    });
    expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it(
    'answers a preflight from an allowed origin before authentication, and exposes ' + 'the headers the guide promises',
    async () => {
      const preflight = await raw(app, 'OPTIONS', '/rest/v1/clients', {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example.com');
      expect(preflight.headers['access-control-allow-methods']).toBe('GET,HEAD,POST,PUT,PATCH,DELETE');
      expect(String(preflight.headers['access-control-allow-headers'])).toContain('Idempotency-Key');
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
      const actual = await raw(app, 'GET', '/rest/v1/clients', { ...auth(), origin: 'https://app.example.com' });
      expect(actual.headers['access-control-allow-origin']).toBe('https://app.example.com');
      expect(String(actual.headers['access-control-expose-headers'])).toMatch(
        /Link.*X-Total-Count.*X-RateLimit-Remaining/,
      );
      const error = await raw(app, 'GET', '/rest/v1/clients', { origin: 'https://app.example.com' });
      expect(error.status).toBe(401);
      expect(error.headers['access-control-allow-origin']).toBe('https://app.example.com');
      const stranger = await raw(app, 'OPTIONS', '/rest/v1/clients', {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
      });
      expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
      // Cookie-session endpoints never answer cross-origin.
      const session = await raw(app, 'OPTIONS', '/api/profile/api-keys', {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
      });
      expect(session.headers['access-control-allow-origin']).toBeUndefined();
    },
  );
});

describe('compression', () => {
  it('compresses large JSON for clients that accept it, and leaves small answers alone', async () => {
    const big = await raw(app, 'GET', '/rest/v1/clients?per_page=100', { ...auth(), 'accept-encoding': 'gzip' });
    expect(big.status).toBe(200);
    expect(big.headers['content-encoding']).toBe('gzip');
    expect(big.headers.vary).toMatch(/Accept-Encoding/i);
    const plainJson = await raw(app, 'GET', '/rest/v1/clients?per_page=100', auth());
    expect(plainJson.headers['content-encoding']).toBeUndefined();
    expect(big.body.length).toBeLessThan(plainJson.body.length / 3);
    const small = await raw(app, 'GET', '/api/version', { 'accept-encoding': 'gzip, br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    const script = await raw(app, 'GET', '/api-docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'br' });
    expect(script.headers['content-encoding']).toBe('br');
  });
});

describe('conditional GET', () => {
  it('gives single rows an ETag and answers 304 to If-None-Match until the row changes', async () => {
    const path = `/rest/v1/clients/${clientIds[0]}`;
    const first = await raw(app, 'GET', path, auth());
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    const again = await raw(app, 'GET', path, { ...auth(), 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect((await actor.api.patch(`/clients/${clientIds[0]}`, { website: 'https://changed.example' })).status).toBe(
      200,
    );
    const changed = await raw(app, 'GET', path, { ...auth(), 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });
});

describe('PATCH bodies', () => {
  it(
    'accept application/merge-patch+json with the meaning of our JSON PATCH, and ' + 'refuse other types with 415',
    async () => {
      const merge = await raw(
        app,
        'PATCH',
        `/rest/v1/clients/${clientIds[1]}`,
        { ...auth(), 'content-type': 'application/merge-patch+json' },
        JSON.stringify({ shortName: 'MP' }),
      );
      expect(merge.status).toBe(200);
      expect(JSON.parse(merge.body.toString())).toMatchObject({ shortName: 'MP' });
      const other = await raw(
        app,
        'PATCH',
        `/rest/v1/clients/${clientIds[1]}`,
        { ...auth(), 'content-type': 'application/vnd.api+json' },
        JSON.stringify({ shortName: 'X' }),
      );
      expect(other.status).toBe(415);
      expect(JSON.parse(other.body.toString()).error.code).toBe('unsupported_media_type');
    },
  );
});

describe('U+0000 in API input', () => {
  it('answers 400 validation_failed naming the field, at any depth, in queries and in path parameters', async () => {
    const top = await actor.api.post('/clients', { name: 'a\u0000b' });
    expect(top.status).toBe(400);
    expect(top.body.error).toMatchObject({
      code: 'validation_failed',
      details: [{ path: '/name', message: 'must not contain the character U+0000 (NUL)' }],
    });
    const deep = await actor.api.post('/clients', { name: 'ok', contacts: [{ name: 'Jane', role: 'CISO\u0000' }] });
    expect(deep.body.error.details).toEqual([
      { path: '/contacts/0/role', message: 'must not contain the character U+0000 (NUL)' },
    ]);
    const patch = await actor.api.patch(`/clients/${clientIds[2]}`, { description: 'x\u0000' });
    expect(patch.body.error.details[0].path).toBe('/description');
    const query = await actor.api.get('/clients?q=a%00b');
    expect(query.status).toBe(400);
    expect(query.body.error.details).toEqual([{ path: '/q', message: 'must not contain the character U+0000 (NUL)' }]);
    const param = await actor.api.get('/clients/%00');
    expect(param.status).toBe(400);
    expect(param.body.error.details[0].path).toBe('/id');
  });
});

describe('/favicon.ico', () => {
  it("answers with the service's icon, cached, without a key", async () => {
    const res = await fetch(`${app.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await res.arrayBuffer());
    // An icon file (type 1) holding one 32x32 image.
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4), bytes[6], bytes[7]]).toEqual([
      0, 1, 1, 32, 32,
    ]);
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const again = await fetch(`${app.url}/favicon.ico`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });
});

describe('public endpoints', () => {
  it('are limited per client address: 429 with Retry-After and the rate-limit headers', async () => {
    // RATE_LIMIT_PER_IP is 3 here (the test client has fetched the OpenAPI document once already).
    const statuses: number[] = [];
    let last: Response | null = null;
    for (let i = 0; i < 4; i++) {
      last = await fetch(`${plain.url}/api/rest-docs/openapi`);
      statuses.push(last.status);
    }
    expect(statuses[0]).toBe(200);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(3);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last!.headers.get('x-ratelimit-limit')).toBe('3');
  });
});
