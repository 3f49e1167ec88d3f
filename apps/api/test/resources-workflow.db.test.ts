import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let admin: Actor;

// The smallest valid PNG: 1x1 transparent pixel.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

beforeAll(async () => {
  app = await startTestApp();
  admin = await createActor(app, { role: 'admin' });
});
afterAll(async () => {
  await app?.stop();
});

describe('a workspace built entirely over REST', () => {
  let clientId: string;
  let projectId: string;
  let reportId: string;

  it('creates a client, a project and a report from a template with its tabs', async () => {
    const client = await admin.api.post('/clients', { name: 'Acme Corp', shortName: 'ACME' });
    expect(client.status).toBe(201);
    expect(client.headers.get('location')).toBe(`${app.url}/rest/v1/clients/${client.body.id}`);
    clientId = client.body.id;
    await admin.allow(clientId);
    const project = await admin.api.post('/projects', {
      clientId,
      name: 'External test 2026',
      startDate: '2026-11-02',
    });
    expect(project.status).toBe(201);
    expect(project.body).toMatchObject({
      clientId,
      name: 'External test 2026',
      startDate: '2026-11-02',
      status: 'active',
    });
    projectId = project.body.id;
    const template = await admin.api.post('/report-templates', {
      name: 'Web',
      tabs: [{ title: 'Executive summary', content: 'Summary' }, { title: 'Scope' }],
    });
    expect(template.status).toBe(201);
    const report = await admin.api.post('/reports', { projectId, title: 'Final report', templateId: template.body.id });
    expect(report.status).toBe(201);
    expect(report.body).toMatchObject({ projectId, clientId, status: 'draft', templateId: template.body.id });
    reportId = report.body.id;
    const tabs = await admin.api.get(`/report-tabs?report_id=${reportId}`);
    expect(tabs.body.map((t: { title: string }) => t.title)).toEqual(['Executive summary', 'Scope']);
    expect(report.body.language).toBe('en');

    // A German template makes a German report, unless the request names a language.
    const german = await admin.api.post('/report-templates', {
      name: 'Webanwendung',
      language: 'de',
      tabs: [{ title: 'Management Summary' }],
    });
    const fromGerman = await admin.api.post('/reports', { projectId, title: 'Bericht', templateId: german.body.id });
    expect(fromGerman.status).toBe(201);
    expect(fromGerman.body.language).toBe('de');
    const chosen = await admin.api.post('/reports', {
      projectId,
      title: 'Report',
      templateId: german.body.id,
      language: 'en',
    });
    expect(chosen.body.language).toBe('en');
  });

  it('adds findings to the report and pages through them with correct headers', async () => {
    for (let i = 0; i < 7; i++) {
      const f = await admin.api.post('/findings', {
        reportId,
        title: `Finding ${i}`,
        severity: i % 2 ? 'high' : 'low',
        cves: ['CVE-2024-0001'],
      });
      expect(f.status).toBe(201);
      expect(f.body).toMatchObject({ projectId, reportIds: [reportId], status: 'open' });
    }
    const page2 = await admin.api.get(`/findings?report_id=${reportId}&per_page=3&page=2&foo=bar`);
    expect(page2.status).toBe(200);
    expect(page2.body).toHaveLength(3);
    expect(page2.headers.get('x-total-count')).toBe('7');
    expect(page2.headers.get('x-page')).toBe('2');
    expect(page2.headers.get('x-per-page')).toBe('3');
    expect(page2.headers.get('x-total-pages')).toBe('3');
    const links = Object.fromEntries(
      page2.headers
        .get('link')!
        .split(', ')
        .map((part) => {
          const [, url, rel] = /^<([^>]+)>; rel="(\w+)"$/.exec(part)!;
          return [rel, new URL(url!, 'http://x').searchParams];
        }),
    );
    expect(Object.keys(links)).toEqual(['first', 'prev', 'next', 'last']);
    expect([links.first.get('page'), links.prev.get('page'), links.next.get('page'), links.last.get('page')]).toEqual([
      '1',
      '1',
      '3',
      '3',
    ]);
    expect(links.next.get('per_page')).toBe('3');
    expect(links.next.get('report_id')).toBe(reportId);
    const all = await admin.api.get(`/findings?report_id=${reportId}&per_page=1000`);
    expect(all.headers.get('x-per-page')).toBe('100');
    // In the report's order: worst first, then by title.
    expect(all.body.map((f: { title: string }) => f.title)).toEqual([1, 3, 5, 0, 2, 4, 6].map((i) => `Finding ${i}`));
    const high = await admin.api.get(`/findings?report_id=${reportId}&severity=high`);
    expect(high.headers.get('x-total-count')).toBe('3');
    const search = await admin.api.get('/findings?q=findin 3');
    expect(search.body.map((f: { title: string }) => f.title)).toEqual(['Finding 3']);
  });

  it('replays a POST retried with the same Idempotency-Key and creates nothing new', async () => {
    const body = { reportId, title: 'Stored XSS', severity: 'medium' };
    const first = await admin.api.post('/findings', body, { headers: { 'Idempotency-Key': 'retry-1' } });
    expect(first.status).toBe(201);
    const again = await admin.api.post('/findings', body, { headers: { 'Idempotency-Key': 'retry-1' } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    const other = await admin.api.post(
      '/findings',
      { ...body, title: 'Other' },
      { headers: { 'Idempotency-Key': 'retry-1' } },
    );
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    const count = await admin.api.get(`/findings?q=stored xss`);
    expect(count.headers.get('x-total-count')).toBe('1');
  });

  it('loses a PATCH race with 409 conflict and writes nothing', async () => {
    const tab = (await admin.api.get(`/report-tabs?report_id=${reportId}`)).body[0];
    const ok = await admin.api.patch(`/report-tabs/${tab.id}`, { content: 'v2', expectedUpdatedAt: tab.updatedAt });
    expect(ok.status).toBe(200);
    expect(ok.body.updatedAt > tab.updatedAt).toBe(true);
    const stale = await admin.api.patch(`/report-tabs/${tab.id}`, { content: 'v3', expectedUpdatedAt: tab.updatedAt });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('conflict');
    expect((await admin.api.get(`/report-tabs/${tab.id}`)).body.content).toBe('v2');
    const plain = await admin.api.patch(`/report-tabs/${tab.id}`, { content: 'v4' });
    expect(plain.status).toBe(200);
  });

  it('deletes a report into the trash and restores it exactly as it was', async () => {
    const before = (await admin.api.get(`/reports/${reportId}`)).body;
    const findingsBefore = (await admin.api.get(`/findings?report_id=${reportId}&per_page=100`)).body.length;
    expect((await admin.api.delete(`/reports/${reportId}`)).status).toBe(204);
    expect((await admin.api.get(`/reports/${reportId}`)).status).toBe(404);
    expect((await admin.api.get(`/report-tabs?report_id=${reportId}`)).body).toEqual([]);
    const trash = await admin.api.get('/trash');
    expect(trash.body).toEqual([
      expect.objectContaining({ type: 'report', id: reportId, name: 'Final report', clientId, projectId }),
    ]);
    const restored = await admin.api.post(`/reports/${reportId}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual(before);
    expect((await admin.api.get(`/findings?report_id=${reportId}&per_page=100`)).body.length).toBe(findingsBefore);
    expect((await admin.api.get('/trash')).body).toEqual([]);
  });

  it('hides a deleted client with its projects and reports, and restores them with it', async () => {
    expect((await admin.api.delete(`/clients/${clientId}`)).status).toBe(204);
    expect((await admin.api.get(`/projects/${projectId}`)).status).toBe(404);
    expect((await admin.api.get(`/reports/${reportId}`)).status).toBe(404);
    expect((await admin.api.get(`/reports?client_id=${clientId}`)).headers.get('x-total-count')).toBe('0');
    expect((await admin.api.post(`/projects/${projectId}/restore`)).status).toBe(404);
    expect((await admin.api.post(`/clients/${clientId}/restore`)).status).toBe(200);
    expect((await admin.api.get(`/reports/${reportId}`)).status).toBe(200);
  });

  it('uploads an evidence image and serves its bytes with the right headers', async () => {
    const finding = (await admin.api.get(`/findings?report_id=${reportId}`)).body[0];
    const form = new FormData();
    form.set('findingId', finding.id);
    form.set('caption', 'Login page');
    form.set('file', new Blob([PNG]), '../../etc/passwd.png');
    const up = await admin.api.post('/evidence-images', form);
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({
      findingId: finding.id,
      contentType: 'image/png',
      size: PNG.length,
      caption: 'Login page',
    });
    expect(up.body.fileName).not.toContain('/');
    const res = await fetch(`${app.url}/rest/v1/evidence-images/${up.body.id}/content`, {
      headers: { authorization: `Bearer ${admin.key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="/);
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);

    const fake = new FormData();
    fake.set('findingId', finding.id);
    fake.set('file', new Blob(['<svg onload=alert(1)>']), 'x.png');
    const bad = await admin.api.post('/evidence-images', fake);
    expect(bad.status).toBe(415);

    expect((await admin.api.delete(`/evidence-images/${up.body.id}`)).status).toBe(204);
    expect((await admin.api.get(`/evidence-images/${up.body.id}/content`)).status).toBe(404);
  });
});
