// Caching as JavaScript clients do it: Node's fetch sends `Cache-Control: no-cache` with every
// `If-None-Match` (the fetch standard does), and the answer must still be 304 while the
// representation is unchanged. Rows, lists and every download (exports, evidence bytes, the Word
// template) carry an ETag.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';
import { pngOfColour } from './support/png.ts';

// Why a whole image: uploads are decoded to the end, and a truncated one is refused.
const PNG = pngOfColour(1, 2, 3);
const TEMPLATE = readFileSync(
  path.resolve(
    path.dirname(fileURLToPath(import.meta.url)),
    '../../../library/report-styles/word-template-example.docx',
  ),
);

let app: TestApp;
let member: Actor;
// Filled in by beforeAll.
const ids = {} as Record<'client' | 'finding' | 'image' | 'project' | 'report' | 'style', string>;

beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  const creator = await createActor(app, { role: 'member' });
  ids.client = (await creator.api.post('/clients', { name: 'Caching Corp' })).body.id;
  member = await createActor(app, { role: 'member', clientIds: [ids.client] });
  ids.project = (await member.api.post('/projects', { clientId: ids.client, name: 'Caching' })).body.id;
  ids.report = (await member.api.post('/reports', { projectId: ids.project, title: 'Cached report' })).body.id;
  ids.finding = (
    await member.api.post('/findings', { reportId: ids.report, title: 'First', severity: 'high' })
  ).body.id;
  const form = new FormData();
  form.set('findingId', ids.finding);
  form.set('file', new Blob([PNG], { type: 'image/png' }), 'proof.png');
  ids.image = (await member.api.post('/evidence-images', form)).body.id;
  ids.style = (await member.api.post('/style-library', { name: 'Cached style' })).body.id;
  const template = new FormData();
  template.set('file', new Blob([TEMPLATE]), 'firm.docx');
  expect((await member.api.put(`/style-library/${ids.style}/word-template`, template)).status).toBe(200);
});
afterAll(async () => {
  await app?.stop();
});

const auth = () => ({ authorization: `Bearer ${member.key}` });

/** Node's own fetch, as a client script uses it. */
async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${app.url}/rest/v1${path}`, { headers: { ...auth(), ...headers } });
  return { status: res.status, etag: res.headers.get('etag'), bytes: Buffer.from(await res.arrayBuffer()) };
}

/** node:http, to see exactly which headers were sent. */
function raw(path: string, headers: Record<string, string>): Promise<{ status: number; length: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${app.url}/rest/v1${path}`, { headers }, (res) => {
      let length = 0;
      res.on('data', (c: Buffer) => (length += c.length));
      res.on('end', () => resolve({ status: res.statusCode!, length }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('If-None-Match', () => {
  it("answers 304 to Node's fetch, whatever Cache-Control the request carries", async () => {
    for (const path of [`/findings/${ids.finding}`, `/findings?report_id=${ids.report}`]) {
      const first = await get(path);
      expect(first.status).toBe(200);
      expect(first.etag).toMatch(/^W\/"[\w-]+"$/);
      // fetch adds `Cache-Control: no-cache` (and `Pragma: no-cache`) to a conditional request.
      const again = await get(path, { 'if-none-match': first.etag! });
      expect(again.status, path).toBe(304);
      expect(again.bytes.length).toBe(0);
      for (const cacheControl of ['no-cache', 'max-age=0', 'no-store'])
        expect(
          (await raw(path, { ...auth(), 'if-none-match': first.etag!, 'cache-control': cacheControl })).status,
          `${path} with Cache-Control: ${cacheControl}`,
        ).toBe(304);
      // Weak comparison, a list of tags, and `*`.
      const strong = first.etag!.replace(/^W\//, '');
      expect((await get(path, { 'if-none-match': strong })).status).toBe(304);
      expect((await get(path, { 'if-none-match': `"other", ${first.etag}` })).status).toBe(304);
      expect((await get(path, { 'if-none-match': '*' })).status).toBe(304);
      expect((await get(path, { 'if-none-match': '"other"' })).status).toBe(200);
    }
    const etag = (await get(`/findings/${ids.finding}`)).etag!;
    expect((await member.api.patch(`/findings/${ids.finding}`, { title: 'First, renamed' })).status).toBe(200);
    const changed = await get(`/findings/${ids.finding}`, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.etag).not.toBe(etag);
  });

  it('gives every download an ETag and answers 304 on a match', async () => {
    const downloads: Array<{ path: string; weak: boolean }> = [
      { path: `/reports/${ids.report}/export-markdown`, weak: true },
      { path: `/reports/${ids.report}/export-csv`, weak: true },
      // Weak: each render's bytes differ (zip times, generated ids); the tag is made from the report.
      { path: `/reports/${ids.report}/export-docx`, weak: true },
      { path: `/evidence-images/${ids.image}/content`, weak: false },
      { path: `/style-library/${ids.style}/word-template`, weak: false },
    ];
    const tags: Record<string, string> = {};
    for (const { path, weak } of downloads) {
      const first = await get(path);
      expect(first.status, path).toBe(200);
      expect(first.bytes.length, path).toBeGreaterThan(0);
      expect(first.etag, path).toMatch(weak ? /^W\/"[\w-]+"$/ : /^"[\w-]+"$/);
      const again = await get(path, { 'if-none-match': first.etag! });
      expect(again.status, path).toBe(304);
      expect(again.bytes.length, path).toBe(0);
      // The same report, the same tag: a client can keep its copy.
      expect((await get(path)).etag, path).toBe(first.etag);
      tags[path] = first.etag!;
    }
    // A changed report changes its exports' tags; the image and the template stay as they were.
    expect((await member.api.patch(`/findings/${ids.finding}`, { title: 'First, changed again' })).status).toBe(200);
    for (const { path } of downloads) {
      const after = await get(path, { 'if-none-match': tags[path]! });
      expect(after.status, path).toBe(path.includes('/export-') ? 200 : 304);
    }
  });

  it('is only for GET: other methods are never answered 304', async () => {
    const row = await get(`/findings/${ids.finding}`);
    const res = await fetch(`${app.url}/rest/v1/findings/${ids.finding}`, {
      method: 'PATCH',
      headers: { ...auth(), 'content-type': 'application/json', 'if-none-match': row.etag! },
      body: JSON.stringify({ title: 'First, changed again' }),
    });
    expect(res.status).toBe(200);
  });
});

describe('Location', () => {
  it('is absolute, with the scheme and host the client used behind a trusted proxy, replays included', async () => {
    const created = await member.api.post('/clients', { name: 'Located Corp' });
    expect(created.headers.get('location')).toBe(`${app.url}/rest/v1/clients/${created.body.id}`);
    const forwarded = {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'reports.example.com',
      'idempotency-key': 'location-test-1',
    };
    const viaProxy = await member.api.post('/clients', { name: 'Proxied Corp' }, { headers: forwarded });
    expect(viaProxy.headers.get('location')).toBe(`https://reports.example.com/rest/v1/clients/${viaProxy.body.id}`);
    const replay = await member.api.post('/clients', { name: 'Proxied Corp' }, { headers: forwarded });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(viaProxy.headers.get('location'));
    const followed = await fetch(created.headers.get('location')!, { headers: auth() });
    expect(followed.status).toBe(200);
  });
});
