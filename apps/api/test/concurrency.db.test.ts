import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let actor: Actor;
let reportId: string;
let projectId: string;
let clientId: string;

beforeAll(async () => {
  app = await startTestApp({ DB_POOL_MAX: '20' });
  actor = await createActor(app, { role: 'member' });
  const client = await actor.api.post('/clients', { name: 'Race Corp' });
  clientId = client.body.id;
  await actor.allow(clientId);
  projectId = (await actor.api.post('/projects', { clientId: client.body.id, name: 'P' })).body.id;
  reportId = (await actor.api.post('/reports', { projectId, title: 'R' })).body.id;
});
afterAll(async () => {
  await app?.stop();
});

describe('Idempotency-Key under concurrency', () => {
  it(
    '50 concurrent identical POST /findings create exactly one row; the rest replay ' +
      'it or are told it is in progress',
    async () => {
      const body = { reportId, title: 'Concurrent finding', severity: 'low' };
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          actor.api.post('/findings', body, { headers: { 'Idempotency-Key': 'burst-1' } }),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
      const created = answers.filter((a) => a.status === 201);
      expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
      for (const a of answers.filter((x) => x.status === 409))
        expect(a.body.error.code).toBe('idempotency_in_progress');
      const rows = await app.dbs.tenant('findings').where({ title: 'Concurrent finding' });
      expect(rows).toHaveLength(1);
      // After the first finished, a retry replays it.
      const retry = await actor.api.post('/findings', body, { headers: { 'Idempotency-Key': 'burst-1' } });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body.id).toBe(created[0]!.body.id);
    },
  );

  it('keys are per API key: the same key string from another API key is a new request', async () => {
    const other = await createActor(app, { role: 'member' });
    await other.allow(clientId);
    const body = { reportId, title: 'Per key', severity: 'low' };
    const a = await actor.api.post('/findings', body, { headers: { 'Idempotency-Key': 'shared-name' } });
    const b = await other.api.post('/findings', body, { headers: { 'Idempotency-Key': 'shared-name' } });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('POST /report-findings honours Idempotency-Key too', async () => {
    const finding = (await actor.api.post('/findings', { projectId, title: 'Loose', severity: 'info' })).body;
    const body = { reportId, findingId: finding.id };
    const first = await actor.api.post('/report-findings', body, { headers: { 'Idempotency-Key': 'attach-1' } });
    const second = await actor.api.post('/report-findings', body, { headers: { 'Idempotency-Key': 'attach-1' } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const without = await actor.api.post('/report-findings', body);
    expect(without.status).toBe(409);
    expect(without.body.error.code).toBe('already_attached');
  });
});

describe('expectedUpdatedAt under concurrency', () => {
  it.each(['findings', 'reports', 'report-tabs'])(
    'N concurrent PATCH /%s with the same expectedUpdatedAt: exactly one wins',
    async (resource) => {
      const created =
        resource === 'findings'
          ? await actor.api.post('/findings', { projectId, title: 'Target', severity: 'low' })
          : resource === 'reports'
            ? await actor.api.post('/reports', { projectId, title: 'Target' })
            : await actor.api.post('/report-tabs', { reportId, title: 'Target' });
      const { id, updatedAt } = created.body;
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          actor.api.patch(`/${resource}/${id}`, { title: `Writer ${i}`, expectedUpdatedAt: updatedAt }),
        ),
      );
      const winners = answers.filter((a) => a.status === 200);
      expect(winners).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
      const now = (await actor.api.get(`/${resource}/${id}`)).body;
      expect(now.title).toBe(winners[0]!.body.title);
      expect(now.updatedAt).toBe(winners[0]!.body.updatedAt);
    },
  );
});
