// @service/client against the service: typed calls, paging by Link, an answer lost on the way
// retried without creating twice, typed errors, uploads from a path and a stream, downloads with
// their ETag.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ApiError, createServiceClient, fileFrom, ok, type ServiceClient } from '@service/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';
import { pngOfColour } from './support/png.ts';

// Why a whole image: uploads are decoded to the end, and a truncated one is refused.
const PNG = pngOfColour(1, 2, 3);

let app: TestApp;
let actor: Actor;
let service: ServiceClient;
let clientId: string;
let reportId: string;
let dir: string;

beforeAll(async () => {
  app = await startTestApp();
  const creator = await createActor(app, { role: 'member' });
  clientId = (await creator.api.post('/clients', { name: 'Client Package Corp' })).body.id;
  actor = await createActor(app, { role: 'member', clientIds: [clientId] });
  service = createServiceClient({ baseUrl: app.url, apiKey: actor.key });
  dir = mkdtempSync(path.join(tmpdir(), 'service-client-'));
  const project = await ok(service.api.POST('/rest/v1/projects', { body: { clientId, name: 'Package' } }));
  reportId = (await ok(service.api.POST('/rest/v1/reports', { body: { projectId: project.id, title: 'Paged' } }))).id;
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await app?.stop();
});

describe('@service/client', () => {
  it('pages through a whole list by Link', async () => {
    for (let i = 1; i <= 5; i++)
      await ok(service.api.POST('/rest/v1/findings', { body: { reportId, title: `Finding ${i}`, severity: 'low' } }));
    const titles: string[] = [];
    for await (const finding of service.paginate('/rest/v1/findings', { report_id: reportId, per_page: 2 }))
      titles.push(finding.title);
    expect(titles.sort()).toEqual(['Finding 1', 'Finding 2', 'Finding 3', 'Finding 4', 'Finding 5']);
  });

  it('retries a create whose answer was lost with the same Idempotency-Key: one row, not two', async () => {
    let lost = 0;
    const flaky = createServiceClient({
      baseUrl: app.url,
      apiKey: actor.key,
      retry: { sleep: async () => {} },
      fetch: async (request) => {
        const response = await fetch(request);
        if (request.method === 'POST' && lost === 0) {
          lost += 1;
          throw new TypeError('fetch failed: the connection was reset');
        }
        return response;
      },
    });
    const finding = await ok(
      flaky.api.POST('/rest/v1/findings', { body: { reportId, title: 'Created once', severity: 'high' } }),
    );
    expect(lost).toBe(1);
    const rows = await actor.api.get(`/findings?report_id=${reportId}&q=once`);
    expect(rows.body.map((r: { id: string }) => r.id)).toEqual([finding.id]);
  });

  it('turns error answers into ApiError with code and details', async () => {
    const error = await ok(
      service.api.POST('/rest/v1/findings', { body: { reportId, title: '', severity: 'low' } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      details: [{ path: '/title', message: expect.any(String) }],
      requestId: expect.any(String),
    });
    expect((error as ApiError).message).toMatch(/^POST \/rest\/v1\/findings: 400 validation_failed: /);
    const missing = await ok(
      service.api.GET('/rest/v1/reports/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } }),
    ).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    await expect(async () => {
      for await (const _ of service.paginate('/rest/v1/findings', { report_id: 'not-a-uuid' }));
    }).rejects.toMatchObject({ status: 400, code: 'validation_failed', details: [{ path: '/report_id' }] });
  });

  it('uploads from a path and from a stream, and downloads with the ETag', async () => {
    const finding = await ok(
      service.api.POST('/rest/v1/findings', { body: { reportId, title: 'With evidence', severity: 'medium' } }),
    );
    const image = await ok(
      service.api.POST('/rest/v1/evidence-images', {
        body: { findingId: finding.id, file: await fileFrom(Readable.from([PNG]), { name: 'proof.png' }) },
      }),
    );
    expect(image.contentType).toBe('image/png');
    writeFileSync(
      path.join(dir, 'scan.jsonl'),
      JSON.stringify({ 'template-id': 'x-tech', info: { name: 'Tech', severity: 'info' }, host: 'h.example' }),
    );
    const imported = await ok(
      service.api.POST('/rest/v1/reports/{id}/import-scan-file', {
        params: { path: { id: reportId } },
        body: { file: await fileFrom(path.join(dir, 'scan.jsonl')) },
      }),
    );
    expect(imported).toMatchObject({ format: 'nuclei', created: 1 });

    const to = path.join(dir, 'proof.png');
    const first = await service.download('/rest/v1/evidence-images/{id}/content', { id: image.id }, to);
    expect(first).toMatchObject({ file: to, fileName: 'proof.png', contentType: 'image/png', size: PNG.length });
    expect(readFileSync(to).equals(PNG)).toBe(true);
    expect(
      await service.download('/rest/v1/evidence-images/{id}/content', { id: image.id }, to, {
        ifNoneMatch: first!.etag!,
      }),
    ).toBeNull();
    const csv = await service.download('/rest/v1/reports/{id}/export-csv', { id: reportId }, path.join(dir, 'r.csv'));
    expect(csv?.fileName).toBe('Paged.csv');
    expect(readFileSync(path.join(dir, 'r.csv'), 'utf8')).toContain('With evidence');
  });
});
