// A full files disk (issue 27 item 5): FILES_DIR on a size-capped tmpfs the test mounts (as root;
// skipped with a message where that is impossible, required in CI). Uploads then answer 507
// `storage_full`, leave no partial file and no row, and work again once there is room.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationPrefix } from '@service/storage';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'full-files-disk-'));
const files = path.join(dir, 'files');

/** Mounts a 6 MB tmpfs at FILES_DIR; null when it worked, else why not. */
function mountSmallDisk(): string | null {
  try {
    execFileSync('mkdir', ['-p', files]);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=6m,mode=0700', 'tmpfs', files], { stdio: 'pipe' });
    return null;
  } catch (err) {
    return `full-disk tests skipped: cannot mount a size-capped tmpfs (${(err as Error).message.split('\n')[0]}); run them as root where mount is allowed`;
  }
}

const why = mountSmallDisk();
if (why && process.env.CI === 'true') throw new Error(why.replace('skipped', 'are required in CI'));
if (why) process.stderr.write(`${why}\n`);

describe.runIf(why === null)('a full files disk', () => {
  let app: TestApp;
  let actor: Actor;
  let findingId: string;
  let organizationId: string;

  beforeAll(async () => {
    app = await startTestApp({ FILES_DIR: files });
    organizationId = (await app.dbs.controlPlane('organizations').first('id')).id;
    actor = await createActor(app, { role: 'admin' });
    const client = await actor.api.post('/clients', { name: 'Disk' });
    await actor.allow(client.body.id);
    const project = await actor.api.post('/projects', { clientId: client.body.id, name: 'P' });
    const report = await actor.api.post('/reports', { projectId: project.body.id, title: 'R' });
    findingId = (await actor.api.post('/findings', { reportId: report.body.id, title: 'F', severity: 'low' })).body.id;
  }, 180_000);

  afterAll(async () => {
    await app?.stop();
    execFileSync('umount', [files]);
    rmSync(dir, { recursive: true, force: true });
  });

  const upload = async (seed: number) => {
    const noise = Buffer.alloc(600 * 600 * 3).map((_, i) => (i * 7919 + seed * 31) % 251);
    const png = await sharp(noise, { raw: { width: 600, height: 600, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const form = new FormData();
    form.append('findingId', findingId);
    form.append('file', new Blob([png]), 'big.png');
    return actor.api.post('/evidence-images', form);
  };

  it('answers 507 storage_full, leaves no partial file, no row and no orphan, and takes uploads again once there is room', async () => {
    const stored: string[] = [];
    let full = null;
    for (let i = 0; i < 20 && !full; i++) {
      const res = await upload(i);
      if (res.status === 201) stored.push(res.body.id);
      else full = res;
    }
    expect(stored.length).toBeGreaterThan(0);
    expect(full?.status).toBe(507);
    expect(full?.body.error).toMatchObject({ code: 'storage_full', message: expect.stringMatching(/no room/) });
    expect(readdirSync(path.join(files, '.partial'))).toEqual([]);
    expect(await app.dbs.tenant('evidence_images').count({ n: '*' })).toEqual([{ n: stored.length }]);
    expect(await app.dbs.tenant('unclaimed_objects').pluck('key')).toEqual([]);
    const objects: string[] = [];
    for await (const o of app.files.store.list(organizationPrefix(organizationId))) objects.push(o.key);
    expect(objects.filter((k) => k.includes('/evidence/'))).toHaveLength(stored.length);

    expect((await actor.api.delete(`/evidence-images/${stored[0]}`)).status).toBe(204);
    expect((await upload(100)).status).toBe(201);
  }, 120_000);
});
