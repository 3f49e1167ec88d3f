// Moving an installation's files: `npm run admin -- copy-files` copies every stored object from the
// local directory into a real S3 server (the test run's Ceph gateway) and back, verified by the
// SHA-256 the rows record, resumes after an interruption, and the service then runs on the other
// store without losing a file.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ObjectStore, type S3StoreSettings } from '@service/storage';
import { s3Env, s3TestSettings, s3TestsRun } from '@service/storage/testing';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { pngOfColour } from './support/png.ts';
import {
  databaseEnv,
  runAdmin,
  startServiceProcess,
  stopServiceProcess,
  type ServiceProcess,
} from './support/service-process.ts';
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp } from './support/start-test-app.ts';

const runs = s3TestsRun();
const TEMPLATE = readFileSync(
  path.join(import.meta.dirname, '../../../library/report-styles/word-template-example.docx'),
);

describe.runIf(runs)('copy-files', () => {
  let dir: string;
  let app: TestApp;
  let actor: Actor;
  let s3: S3StoreSettings;
  let env: Record<string, string>;
  const images = new Map<string, Buffer>();
  let styleId: string;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'file-store-migration-'));
    s3 = await s3TestSettings();
    // Why hosted: a service process on these databases is licensed by the organization's plan.
    const local = { FILES_STORE: 'local', FILES_DIR: path.join(dir, 'files'), SERVICE_EDITION: 'hosted' };
    app = await startTestApp(local, { evaluation: false });
    await app.dbs.controlPlane('organizations').update({ plan: 'business' });
    env = {
      ...databaseEnv(app),
      ...local,
      ...Object.fromEntries(Object.entries(s3Env(s3)).filter(([k]) => k !== 'FILES_STORE')),
      SERVICE_ADMIN_EMAIL: 'admin@example.com',
      SERVICE_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      DATA_DIR: path.join(dir, 'data'),
    };
    actor = await createActor(app, { role: 'admin' });
    const client = await actor.api.post('/clients', { name: 'Moving' });
    await actor.allow(client.body.id);
    const project = await actor.api.post('/projects', { clientId: client.body.id, name: 'P' });
    const report = await actor.api.post('/reports', { projectId: project.body.id, title: 'R' });
    const finding = await actor.api.post('/findings', { reportId: report.body.id, title: 'F', severity: 'high' });
    for (let i = 0; i < 5; i++) {
      const png = pngOfColour(i, 1, 2);
      const form = new FormData();
      form.append('findingId', finding.body.id);
      form.append('file', new Blob([png]), `shot-${i}.png`);
      images.set((await actor.api.post('/evidence-images', form)).body.id, png);
    }
    styleId = (await actor.api.post('/style-library', { name: 'Firm' })).body.id;
    const form = new FormData();
    form.append('file', new Blob([TEMPLATE]), 'firm.docx');
    expect((await actor.api.put(`/style-library/${styleId}/word-template`, form)).status).toBe(200);
  }, 300_000);

  afterAll(async () => {
    await stopServiceProcess(service);
    await app?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const named = async () =>
    [
      ...((await app.dbs.tenant('evidence_images').pluck('storage_key')) as string[]),
      ...((await app.dbs
        .tenant('report_styles')
        .whereNotNull('template_storage_key')
        .pluck('template_storage_key')) as string[]),
    ].sort();

  async function everyFileThrough(url: string): Promise<void> {
    for (const [id, png] of images) {
      const res = await fetch(`${url}/rest/v1/evidence-images/${id}/content`, {
        headers: { authorization: `Bearer ${actor.key}` },
      });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(png);
    }
    const template = await fetch(`${url}/rest/v1/style-library/${styleId}/word-template`, {
      headers: { authorization: `Bearer ${actor.key}` },
    });
    expect(Buffer.from(await template.arrayBuffer())).toEqual(TEMPLATE);
  }

  it('copies every object into S3, verified, and resumes an interrupted copy', async () => {
    const keys = await named();
    const first = await runAdmin(env, 'copy-files', '--to', 's3');
    expect(first.code, first.stderr).toBe(0);
    expect(keys.length).toBe(images.size + 1);
    expect(first.stdout).toMatch(new RegExp(`Copied ${keys.length} objects \\(.+ in all\\), 0 were there already`));
    expect(first.stdout).toMatch(/Every object matches its SHA-256 in S3 bucket .* To switch, set FILES_STORE=s3/);
    const target = new S3ObjectStore(s3);
    try {
      for (const key of keys) expect(await target.head(key), key).not.toBeNull();
      // An interruption: one object never arrived, another arrived damaged.
      await target.remove(keys[0]!);
      await target.remove(keys[1]!);
      await target.put(keys[1]!, Buffer.from('damaged'), 7);
    } finally {
      await target.close();
    }
    const again = await runAdmin(env, 'copy-files', '--to', 's3');
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(`Copied 1 objects (`);
    expect(again.stdout).toMatch(
      new RegExp(`${keys.length - 2} were there already and match, 1 differed and were replaced, 0 failed`),
    );
  }, 300_000);

  it('the service runs on S3 after the copy, and the files come back into a new directory', async () => {
    service = await startServiceProcess({ ...env, FILES_STORE: 's3' });
    await everyFileThrough(service.url);
    await stopServiceProcess(service);

    const back = path.join(dir, 'files-again');
    const copied = await runAdmin({ ...env, FILES_STORE: 's3' }, 'copy-files', '--to', 'local', '--dir', back);
    expect(copied.code, copied.stdout + copied.stderr).toBe(0);
    expect(copied.stdout).toMatch(/Copied \d+ objects .* 0 failed\./);
    expect(copied.stdout).toContain(`set FILES_STORE=local and FILES_DIR=${back}`);
    service = await startServiceProcess({ ...env, FILES_STORE: 'local', FILES_DIR: back });
    await everyFileThrough(service.url);
  }, 300_000);

  it('refuses to copy into the store in use, naming it', async () => {
    const same = await runAdmin(env, 'copy-files', '--to', 'local');
    expect(same.code).not.toBe(0);
    expect(same.stderr).toMatch(/The service already keeps its files in local directory/);
  }, 120_000);
});
