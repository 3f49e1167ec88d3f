// Conditional exports answer 304 before any work: the validator is computed from what the export
// is made of, so a client holding a current copy costs a database read and one rate unit, never a
// render. The service counts the documents it renders; these tests read the count around each call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportKind } from '../src/resources/reports/report-export-service.ts';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

/** Every request counted at one instant, so X-RateLimit-Remaining moves only by what requests cost. */
const AT = Date.UTC(2026, 0, 1);

let app: TestApp;
let actor: Actor;
let clientId: string;
let reportId: string;
let findingId: string;

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_IP: '100000', RATE_LIMIT_PER_KEY: '100000' }, { rateLimitAt: AT });
  actor = await createActor(app, { role: 'member' });
  clientId = (await actor.api.post('/clients', { name: 'Validator Corp' })).body.id;
  await actor.allow(clientId);
  const project = await actor.api.post('/projects', { clientId, name: 'Polling' });
  reportId = (await actor.api.post('/reports', { projectId: project.body.id, title: 'Polled report' })).body.id;
  findingId = (await actor.api.post('/findings', { reportId, title: 'Weak TLS', severity: 'medium' })).body.id;
});
afterAll(async () => {
  await app?.stop();
});

const KINDS = ['markdown', 'csv', 'docx'] as const satisfies readonly ExportKind[];

async function exportOf(kind: ExportKind, etag?: string) {
  const before = { ...app.services.reportExports.rendered };
  const res = await fetch(`${app.url}/rest/v1/reports/${reportId}/export-${kind}`, {
    headers: { authorization: `Bearer ${actor.key}`, ...(etag ? { 'if-none-match': etag } : {}) },
  });
  await res.arrayBuffer();
  return {
    status: res.status,
    etag: res.headers.get('etag'),
    remaining: Number(res.headers.get('x-ratelimit-remaining')),
    renders: app.services.reportExports.rendered[kind] - before[kind],
  };
}

describe('a conditional export', () => {
  it.each(KINDS)('%s: answers 304 from its validator without rendering; a change renders again', async (kind) => {
    const first = await exportOf(kind);
    expect(first).toMatchObject({ status: 200, renders: 1 });
    expect(first.etag).toMatch(/^W\/"/);
    const again = await exportOf(kind, first.etag!);
    expect(again).toMatchObject({ status: 304, renders: 0, etag: first.etag });
    // Another reader's tag, or none that matches: the document is made.
    expect(await exportOf(kind, 'W/"someone-elses"')).toMatchObject({ status: 200, renders: 1, etag: first.etag });

    await actor.api.patch(`/findings/${findingId}`, { title: `Weak TLS (${kind})` });
    const changed = await exportOf(kind, first.etag!);
    expect(changed).toMatchObject({ status: 200, renders: 1 });
    expect(changed.etag).not.toBe(first.etag);
    expect(await exportOf(kind, changed.etag!)).toMatchObject({ status: 304, renders: 0 });
  });

  it('changes its validator with everything the document shows: tabs, the client, the style', async () => {
    let etag = (await exportOf('docx')).etag!;
    const changes: Array<[string, () => Promise<unknown>]> = [
      ['a new tab', () => actor.api.post('/report-tabs', { reportId, title: 'Scope', content: 'All of it.' })],
      ['the client renamed', () => actor.api.patch(`/clients/${clientId}`, { name: 'Validator Corporation' })],
      [
        'another style',
        async () => {
          const style = await actor.api.post('/style-library', { name: 'Validator style' });
          await actor.api.patch(`/reports/${reportId}`, { styleId: style.body.id });
        },
      ],
      ['a finding attached', () => actor.api.post('/findings', { reportId, title: 'Second', severity: 'low' })],
    ];
    for (const [what, change] of changes) {
      await change();
      const after = await exportOf('docx', etag);
      expect(after.status, what).toBe(200);
      expect(after.etag, what).not.toBe(etag);
      etag = after.etag!;
    }
  });

  it('costs 1 rate unit when answered 304, and the 10 of a Word export when it renders', async () => {
    const made = await exportOf('docx');
    const notModified = await exportOf('docx', made.etag!);
    expect(notModified.status).toBe(304);
    expect(made.remaining - notModified.remaining).toBe(1);
    const rendered = await exportOf('docx', 'W/"stale"');
    expect(rendered.status).toBe(200);
    expect(notModified.remaining - rendered.remaining).toBe(10);
    const plain = await exportOf('docx');
    expect(rendered.remaining - plain.remaining).toBe(10);
  });
});

describe('a conditional export that must render', () => {
  it('is refused with 429 when the rest of its cost does not fit, and renders nothing', async () => {
    const own = await startTestApp({ RATE_LIMIT_PER_IP: '1000', RATE_LIMIT_PER_KEY: '14' }, { rateLimitAt: AT });
    try {
      const reader = await createActor(own, { role: 'member' });
      const client = (await reader.api.post('/clients', { name: 'Tight budget' })).body.id;
      const project = (await reader.api.post('/projects', { clientId: client, name: 'P' })).body.id;
      const report = (await reader.api.post('/reports', { projectId: project, title: 'R' })).body.id;
      const url = `${own.url}/rest/v1/reports/${report}/export-docx`;
      const get = (etag?: string) =>
        fetch(url, { headers: { authorization: `Bearer ${reader.key}`, ...(etag ? { 'if-none-match': etag } : {}) } });
      // 3 used by the setup, 10 by this render: 1 left.
      const first = await get();
      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
      // A render asked for conditionally is charged 1, then 9 before rendering: they do not fit.
      const stale = await get('W/"stale"');
      expect(stale.status).toBe(429);
      expect(await stale.json()).toMatchObject({ error: { code: 'rate_limited' } });
      expect(Number(stale.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(own.services.reportExports.rendered.docx).toBe(1);
    } finally {
      await own.stop();
    }
  });
});
