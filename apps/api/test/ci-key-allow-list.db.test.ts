// A key made for a CI job: with `addsCreatedClients` the clients it creates join its own allow-list,
// so the job can create its client, project and report and import a scan into that report with the
// one key. Off by default (a key without it is refused at the import), shown in the key's JSON and
// to administrators, and a full list refuses the create instead of leaving a client the key cannot edit.
import { MAX_ALLOWED_CLIENTS } from '@service/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient, type HttpClient } from './support/http-client.ts';
import { createActor, signIn } from './support/identity-fixtures.ts';
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp } from './support/start-test-app.ts';

const NUCLEI = JSON.stringify({
  'template-id': 'tech-detect',
  info: { name: 'Technology detected', severity: 'low' },
  host: 'ci.example',
  'matched-at': 'https://ci.example/',
});

let app: TestApp;
let owner: Awaited<ReturnType<typeof signIn>>;
let ownerEmail: string;

beforeAll(async () => {
  app = await startTestApp();
  const member = await createActor(app, { role: 'member' });
  ownerEmail = member.user.email;
  owner = await signIn(app, ownerEmail, 'a-long-test-password');
});
afterAll(async () => {
  await app?.stop();
});

/** A key made on the session API, and a REST client using it. */
async function newKey(
  body: Record<string, unknown>,
): Promise<{ id: string; json: Record<string, unknown>; api: HttpClient }> {
  const res = await owner.post('/api/profile/api-keys', { name: 'CI pipeline', scope: 'read-write', ...body });
  expect(res.status).toBe(201);
  return {
    id: res.body.apiKey.id,
    json: res.body.apiKey,
    api: httpClient(`${app.url}/rest/v1`, { token: res.body.key }),
  };
}

/** The pipeline: its own client, project and report, then a scan imported into that report. */
async function pipeline(api: HttpClient) {
  const client = await api.post('/clients', { name: `CI customer ${Math.random()}` });
  expect(client.status).toBe(201);
  const project = await api.post('/projects', { clientId: client.body.id, name: 'Nightly' });
  const report = await api.post('/reports', { projectId: project.body.id, title: 'Nightly scan' });
  const form = new FormData();
  form.append('file', new Blob([NUCLEI], { type: 'application/json' }), 'scan.jsonl');
  const imported = await api.post(`/reports/${report.body.id}/import-scan-file`, form);
  return { clientId: client.body.id as string, imported };
}

describe('a key that adds the clients it creates to its allow-list', () => {
  it('is off by default: the pipeline is refused at the import', async () => {
    const key = await newKey({});
    expect(key.json.addsCreatedClients).toBe(false);
    const { imported } = await pipeline(key.api);
    expect(imported.status).toBe(403);
    expect(imported.body.error.code).toBe('client_not_allowed');
  });

  it('with the option, the pipeline runs to the end with one key, and the key lists the client', async () => {
    const key = await newKey({ addsCreatedClients: true });
    expect(key.json).toMatchObject({ addsCreatedClients: true, clientIds: [] });
    const { clientId, imported } = await pipeline(key.api);
    expect(imported.status).toBe(200);
    expect(imported.body.created).toBe(1);
    const mine = (await owner.get('/api/profile/api-keys')).body.find((k: { id: string }) => k.id === key.id);
    expect(mine).toMatchObject({ addsCreatedClients: true, clientIds: [clientId] });
    // Administrators see it on every key.
    const admin = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const listed = (await admin.get('/api/admin/api-keys')).body.find((k: { id: string }) => k.id === key.id);
    expect(listed).toMatchObject({ addsCreatedClients: true, clientIds: [clientId], ownerEmail });
    // The keys pages say so.
    expect((await admin.get('/admin')).text).toContain('the clients it creates');
  });

  it('a replayed create adds nothing twice; turning the option off stops it, not the clients already added', async () => {
    const key = await newKey({ addsCreatedClients: true });
    const once = { 'Idempotency-Key': `ci-${key.id}` };
    const first = await key.api.post('/clients', { name: 'Replayed customer' }, { headers: once });
    const again = await key.api.post('/clients', { name: 'Replayed customer' }, { headers: once });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const off = await owner.patch(`/api/profile/api-keys/${key.id}`, { addsCreatedClients: false });
    expect(off.body).toMatchObject({ addsCreatedClients: false, clientIds: [first.body.id] });
    const later = await key.api.post('/clients', { name: 'Not added' });
    expect(later.status).toBe(201);
    const now = (await owner.get('/api/profile/api-keys')).body.find((k: { id: string }) => k.id === key.id);
    expect(now.clientIds).toEqual([first.body.id]);
  });

  it('refuses the create with 409 when its list is full, and creates nothing', async () => {
    const key = await newKey({ addsCreatedClients: true });
    const full = Array.from({ length: MAX_ALLOWED_CLIENTS }, () => crypto.randomUUID());
    await app.dbs.controlPlane('api_keys').where({ id: key.id }).update({ client_ids: full });
    const refused = await key.api.post('/clients', { name: 'One too many' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/allow-list is full/),
    });
    const found = await key.api.get('/clients?q=too%20many');
    expect(found.body).toEqual([]);
  });
});
