// Stored files through the API on each backend (a directory; a real S3 server, the test run's Ceph
// RADOS Gateway, reached through a proxy the test can break): streamed downloads with ETag, 304 and
// Range, keys per organization, nothing dangling and nothing orphaned after uploads, replacements,
// deletes and a store that fails, 503 `storage_unavailable` on what needs the store.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedFileEtag } from '@service/http';
import { organizationPrefix } from '@service/storage';
import { s3Env, s3TestSettings, s3TestsRun } from '@service/storage/testing';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { pngOfColour } from './support/png.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';
import { FreezableProxy } from './support/tcp-proxy.ts';

const TEMPLATE = readFileSync(
  path.join(import.meta.dirname, '../../../library/report-styles/word-template-example.docx'),
);

const backends = [
  ['local directory', false],
  ['S3 (Ceph RGW)', true],
] as const;

describe.each(backends)('%s', (_name, s3) => {
  const runs = s3 ? s3TestsRun() : true;
  let app: TestApp;
  let actor: Actor;
  let organizationId: string;
  let findingId: string;
  let reportId: string;
  let styleId: string;
  let proxy: FreezableProxy | null = null;
  let dir: string;

  beforeAll(async () => {
    if (!runs) return;
    dir = mkdtempSync(path.join(tmpdir(), 'file-store-api-'));
    let env: Record<string, string> = { FILES_DIR: path.join(dir, 'files') };
    if (s3) {
      const settings = await s3TestSettings();
      const target = new URL(settings.endpoint!);
      proxy = new FreezableProxy({ host: target.hostname, port: Number(target.port) });
      await proxy.start();
      env = s3Env({ ...settings, endpoint: `http://127.0.0.1:${proxy.port}` });
    }
    app = await startTestApp(env);
    organizationId = (await app.dbs.controlPlane('organizations').first('id')).id;
    actor = await createActor(app, { role: 'admin' });
    const client = await actor.api.post('/clients', { name: 'Stored files' });
    await actor.allow(client.body.id);
    const project = await actor.api.post('/projects', { clientId: client.body.id, name: 'P' });
    const report = await actor.api.post('/reports', { projectId: project.body.id, title: 'R' });
    reportId = report.body.id;
    findingId = (await actor.api.post('/findings', { reportId, title: 'F', severity: 'high' })).body.id;
    styleId = (await actor.api.post('/style-library', { name: 'Stored style' })).body.id;
  }, 300_000);

  afterAll(async () => {
    await app?.stop();
    await proxy?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const upload = (bytes: Buffer, name = 'shot.png') => {
    const form = new FormData();
    form.append('findingId', findingId);
    form.append('file', new Blob([bytes], { type: 'image/png' }), name);
    return actor.api.post('/evidence-images', form);
  };
  const download = (id: string, headers: Record<string, string> = {}) =>
    fetch(`${app.url}/rest/v1/evidence-images/${id}/content`, {
      headers: { authorization: `Bearer ${actor.key}`, ...headers },
    });
  /** Every object key of the organization in the store. */
  const objects = async () => {
    const keys: string[] = [];
    for await (const o of app.files.store.list(organizationPrefix(organizationId))) keys.push(o.key);
    return keys.sort();
  };
  /** Every object key a row names. */
  const named = async () =>
    [
      ...((await app.dbs.tenant('evidence_images').pluck('storage_key')) as string[]),
      ...((await app.dbs
        .tenant('report_styles')
        .whereNotNull('template_storage_key')
        .pluck('template_storage_key')) as string[]),
    ]
      .filter((k) => k.startsWith(organizationPrefix(organizationId)))
      .sort();

  it.runIf(runs)(
    'stores an upload under a random key of the organization and streams it back with a strong ETag',
    async () => {
      const png = pngOfColour(10, 20, 30);
      const res = await upload(png, '../../etc/passwd.png');
      expect(res.status).toBe(201);
      const row = await app.dbs.tenant('evidence_images').where({ id: res.body.id }).first();
      expect(row.storage_key).toMatch(new RegExp(`^org/${organizationId}/evidence/[0-9a-f]{2}/[0-9a-f]{40}$`));
      expect(row.storage_key).not.toContain('passwd');
      const got = await download(res.body.id);
      expect(got.status).toBe(200);
      expect(got.headers.get('etag')).toBe(storedFileEtag(res.body.sha256));
      expect(got.headers.get('accept-ranges')).toBe('bytes');
      expect(got.headers.get('content-length')).toBe(String(png.length));
      expect(Buffer.from(await got.arrayBuffer())).toEqual(png);
      expect(await objects()).toEqual(await named());
      expect(await app.dbs.tenant('unclaimed_objects').pluck('key')).toEqual([]);
    },
  );

  it.runIf(runs)('streams a large image back whole, four downloads at once', async () => {
    const png = await sharp(randomBytes(1000 * 1000 * 3), { raw: { width: 1000, height: 1000, channels: 3 } })
      .png()
      .toBuffer();
    const { body, status } = await upload(png);
    expect(status).toBe(201);
    const all = await Promise.all(
      [1, 2, 3, 4].map(async () => Buffer.from(await (await download(body.id)).arrayBuffer())),
    );
    for (const got of all) expect(got.equals(png)).toBe(true);
  });

  it.runIf(runs)(
    'answers 304 to its ETag, 206 to one range, 416 past the end and the whole file when If-Range is stale',
    async () => {
      const png = pngOfColour(40, 50, 60);
      const { body } = await upload(png);
      const etag = storedFileEtag(body.sha256);
      expect((await download(body.id, { 'if-none-match': etag, 'cache-control': 'no-cache' })).status).toBe(304);
      const part = await download(body.id, { range: 'bytes=8-15' });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 8-15/${png.length}`);
      expect(Buffer.from(await part.arrayBuffer())).toEqual(png.subarray(8, 16));
      const tail = await download(body.id, { range: 'bytes=-4' });
      expect(Buffer.from(await tail.arrayBuffer())).toEqual(png.subarray(png.length - 4));
      const past = await actor.api.get(`/evidence-images/${body.id}/content`, {
        headers: { range: `bytes=${png.length}-` },
      });
      expect(past.status).toBe(416);
      expect(past.body.error.code).toBe('range_not_satisfiable');
      expect(past.headers.get('content-range')).toBe(`bytes */${png.length}`);
      const stale = await download(body.id, { range: 'bytes=0-3', 'if-range': '"something-else"' });
      expect(stale.status).toBe(200);
      expect(Buffer.from(await stale.arrayBuffer())).toEqual(png);
    },
  );

  it.runIf(runs)('replaces and removes a Word template, keeping exactly the objects rows name', async () => {
    const put = async () => {
      const form = new FormData();
      form.append('file', new Blob([TEMPLATE]), 'firm.docx');
      return actor.api.put(`/style-library/${styleId}/word-template`, form);
    };
    expect((await put()).status).toBe(200);
    const first = (await app.dbs.tenant('report_styles').where({ id: styleId }).first()).template_storage_key;
    expect((await put()).status).toBe(200);
    expect(await app.files.store.head(first)).toBeNull();
    const got = await fetch(`${app.url}/rest/v1/style-library/${styleId}/word-template`, {
      headers: { authorization: `Bearer ${actor.key}` },
    });
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer())).toEqual(TEMPLATE);
    expect(await objects()).toEqual(await named());
    expect((await actor.api.delete(`/style-library/${styleId}/word-template`)).status).toBe(204);
    expect(await objects()).toEqual(await named());
  });

  it.runIf(runs)('deleting a finding takes its images with it; the store holds only what rows name', async () => {
    const doomed = (await actor.api.post('/findings', { reportId, title: 'Doomed', severity: 'low' })).body.id;
    for (const c of [1, 2, 3]) {
      const form = new FormData();
      form.append('findingId', doomed);
      form.append('file', new Blob([pngOfColour(c, 99, 99)]), 'x.png');
      expect((await actor.api.post('/evidence-images', form)).status).toBe(201);
    }
    expect((await actor.api.delete(`/findings/${doomed}`)).status).toBe(204);
    expect(await objects()).toEqual(await named());
    expect(await app.dbs.tenant('unclaimed_objects').pluck('key')).toEqual([]);
  });

  it.runIf(runs && s3)(
    'answers 503 storage_unavailable while the store is gone, and the sweep removes what a failure left',
    async () => {
      const { body } = await upload(pngOfColour(70, 80, 90));
      proxy!.refuse(true);
      try {
        const read = await actor.api.get(`/evidence-images/${body.id}/content`);
        expect(read.status).toBe(503);
        expect(read.body.error.code).toBe('storage_unavailable');
        expect(Number(read.headers.get('retry-after'))).toBeGreaterThan(0);
        const write = await upload(pngOfColour(71, 80, 90));
        expect(write.status).toBe(503);
        expect(write.body.error.code).toBe('storage_unavailable');
        const docx = await actor.api.get(`/reports/${reportId}/export-docx`);
        expect(docx.status).toBe(503);
        expect(docx.body.error.code).toBe('storage_unavailable');
        expect(app.logLines.some((l) => l.includes('"event":"file_store_unavailable"'))).toBe(true);
        const admin = await fetch(`${app.url}/admin`, { headers: { cookie: await adminCookie(app) } });
        const page = await admin.text();
        expect(page).toMatch(/File storage[\s\S]*Unavailable since[\s\S]*: (unreachable|timed out)\./);
        // A delete commits without the store; its object is recorded and goes once the store is back.
        expect((await actor.api.delete(`/evidence-images/${body.id}`)).status).toBe(204);
      } finally {
        proxy!.refuse(false);
      }
      expect(await app.dbs.tenant('evidence_images').where({ id: body.id }).first()).toBeUndefined();
      expect((await objects()).length).toBeGreaterThan((await named()).length);
      expect((await app.files.sweep(app.dbs.tenant, { olderThanMs: 0 })).removed).toBeGreaterThan(0);
      expect(await objects()).toEqual(await named());
      expect(await app.dbs.tenant('unclaimed_objects').pluck('key')).toEqual([]);
    },
  );

  it.runIf(runs && s3)(
    'a store that fails in the middle of an upload leaves no row and, after the sweep, no object',
    async () => {
      const before = await app.dbs.tenant('evidence_images').count({ n: '*' });
      const big = Buffer.concat([pngOfColour(1, 2, 3), Buffer.alloc(2 * 1024 * 1024, 7)]);
      proxy!.cutNextAfter(512 * 1024);
      const res = await upload(big);
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('storage_unavailable');
      expect(proxy!.cuts).toBeGreaterThan(0);
      expect(await app.dbs.tenant('evidence_images').count({ n: '*' })).toEqual(before);
      await app.files.sweep(app.dbs.tenant, { olderThanMs: 0 });
      expect(await objects()).toEqual(await named());
      expect(await app.dbs.tenant('unclaimed_objects').pluck('key')).toEqual([]);
    },
  );
});

async function adminCookie(app: TestApp): Promise<string> {
  const res = await fetch(`${app.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'test-admin-password-1' }),
  });
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}
