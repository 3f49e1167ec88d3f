// Answers lost on the way back: a proxy lets the service answer in full, then closes the caller's
// connection. @service/client resends what the document says is safe to resend, and what the
// caller is finally told must be what happened: success after success, never "not found" after a
// delete or a restore that went through, and no silent retry of what cannot be repeated.
import { NoAnswerError, createServiceClient, ok, type ServiceClient } from '@service/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnswerDroppingProxy, type AnswerDroppingProxy } from './support/answer-dropping-proxy.ts';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let proxy: AnswerDroppingProxy;
let admin: Actor;
let otherAdmin: Actor;
let service: ServiceClient;
let projectId: string;

beforeAll(async () => {
  app = await startTestApp();
  proxy = await startAnswerDroppingProxy(app.url);
  admin = await createActor(app, { role: 'admin' });
  const client = await admin.api.post('/clients', { name: 'Lost Answers Corp' });
  await admin.allow(client.body.id);
  otherAdmin = await createActor(app, { role: 'admin', clientIds: [client.body.id] });
  projectId = (await admin.api.post('/projects', { clientId: client.body.id, name: 'Retries' })).body.id;
  service = createServiceClient({ baseUrl: proxy.url, apiKey: admin.key, retry: { sleep: async () => {} } });
});
afterAll(async () => {
  await proxy?.close();
  await app?.stop();
});

async function newReport(title: string): Promise<string> {
  return (await ok(service.api.POST('/rest/v1/reports', { body: { projectId, title } }))).id;
}

/** The requests of one path the proxy passed, with what the service answered and whether the caller got it. */
const passed = (method: string, path: string) =>
  proxy.seen
    .filter((s) => s.method === method && s.path === path)
    .map((s) => ({ status: s.status, dropped: s.dropped }));

describe('an answer lost after the service answered', () => {
  it('a delete into the trash: resent, and the caller is told it succeeded; the row is in the trash once', async () => {
    const id = await newReport('Deleted once');
    proxy.dropNextAnswer('DELETE', new RegExp(`/reports/${id}$`));
    await ok(service.api.DELETE('/rest/v1/reports/{id}', { params: { path: { id } } }));
    expect(passed('DELETE', `/rest/v1/reports/${id}`)).toEqual([
      { status: 204, dropped: true },
      { status: 204, dropped: false },
    ]);
    const trash = await admin.api.get('/trash?type=report');
    expect(trash.body.filter((t: { id: string }) => t.id === id)).toHaveLength(1);
    // The rule: only who moved it there gets 204 again; for anyone else it is a row they cannot see.
    expect((await otherAdmin.api.delete(`/reports/${id}`)).status).toBe(404);
    expect((await admin.api.delete(`/reports/${id}`)).status).toBe(204);
  });

  it('a restore: resent with the same Idempotency-Key, and the caller gets the restored report', async () => {
    const id = await newReport('Restored once');
    expect((await admin.api.delete(`/reports/${id}`)).status).toBe(204);
    proxy.dropNextAnswer('POST', new RegExp(`/reports/${id}/restore$`));
    const restored = await ok(service.api.POST('/rest/v1/reports/{id}/restore', { params: { path: { id } } }));
    expect(restored).toMatchObject({ id, title: 'Restored once' });
    const attempts = proxy.seen.filter((s) => s.path === `/rest/v1/reports/${id}/restore`);
    expect(attempts.map((s) => [s.status, s.dropped, s.headers['idempotent-replayed'] ?? null])).toEqual([
      [200, true, null],
      [200, false, 'true'],
    ]);
    expect((await admin.api.get(`/reports/${id}`)).status).toBe(200);
    // Without a key, a second restore says what is true now: the report is not in the trash.
    expect((await admin.api.post(`/reports/${id}/restore`)).status).toBe(404);
  });

  it('a create: resent with its key, one row', async () => {
    const report = await newReport('One finding');
    proxy.dropNextAnswer('POST', /\/rest\/v1\/findings$/);
    const finding = await ok(
      service.api.POST('/rest/v1/findings', { body: { reportId: report, title: 'Created once', severity: 'low' } }),
    );
    const rows = await admin.api.get(`/findings?report_id=${report}`);
    expect(rows.body.map((r: { id: string }) => r.id)).toEqual([finding.id]);
  });

  it('a permanent delete: not resent, and the caller is told it may have happened', async () => {
    const report = await newReport('Permanent');
    const finding = await ok(
      service.api.POST('/rest/v1/findings', { body: { reportId: report, title: 'Gone', severity: 'low' } }),
    );
    proxy.dropNextAnswer('DELETE', new RegExp(`/findings/${finding.id}$`));
    const error = await ok(
      service.api.DELETE('/rest/v1/findings/{id}', { params: { path: { id: finding.id } } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoAnswerError);
    expect(error).toMatchObject({ resendable: false, request: `DELETE /rest/v1/findings/${finding.id}` });
    expect(passed('DELETE', `/rest/v1/findings/${finding.id}`)).toEqual([{ status: 204, dropped: true }]);
    // It was carried out: a resend would have answered 404, the lie this avoids.
    expect((await admin.api.get(`/findings/${finding.id}`)).status).toBe(404);
  });
});
