// Multipart uploads as an attacker sends them: several file parts, no key, U+0000 in a field.
// The temporary upload directory is listed after each: nothing may be left behind.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@service/db/testing';
import { httpClient } from './support/http-client.ts';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';
import { pngOfColour } from './support/png.ts';

// The smallest valid PNG (1x1, transparent).
// Why a whole image: uploads are decoded to the end, and a truncated one is refused.
const PNG = pngOfColour(1, 2, 3);

let app: TestApp;
let actor: Actor;
let uploadDir: string;
let findingId: string;
let reportId: string;

beforeAll(async () => {
  uploadDir = mkdtempSync(path.join(tmpdir(), 'service-uploads-'));
  app = await startTestApp({ UPLOAD_TMP_DIR: uploadDir });
  actor = await createActor(app, { role: 'admin', clientIds: [] });
  const client = await actor.api.post('/clients', { name: 'Upload Corp' });
  await app.dbs
    .controlPlane('api_keys')
    .where({ id: actor.keyId })
    .update({ client_ids: [client.body.id] });
  const project = await actor.api.post('/projects', { clientId: client.body.id, name: 'Uploads' });
  const finding = await actor.api.post('/findings', {
    projectId: project.body.id,
    title: 'Has evidence',
    severity: 'low',
  });
  expect(finding.status).toBe(201);
  findingId = finding.body.id;
  const report = await actor.api.post('/reports', { projectId: project.body.id, title: 'Scan target' });
  expect(report.status).toBe(201);
  reportId = report.body.id;
});
afterAll(async () => {
  await app?.stop();
  rmSync(uploadDir, { recursive: true, force: true });
});

/** What is left in the upload directory once it is empty, or after 5 s: what failed to go. */
const leftOnDisk = async () => {
  // Why wait: a refused upload's file handle may close a moment after the answer.
  await waitUntil('the upload directory is empty', () => readdirSync(uploadDir).length === 0, {
    timeoutMs: 5_000,
  }).catch(() => undefined);
  return readdirSync(uploadDir);
};

function imageForm(extra: (form: FormData) => void = () => {}): FormData {
  const form = new FormData();
  form.append('findingId', findingId);
  form.append('file', new Blob([PNG], { type: 'image/png' }), 'shot.png');
  extra(form);
  return form;
}

describe('multipart uploads', () => {
  it('store one file and leave nothing in the temporary directory', async () => {
    const res = await actor.api.post(
      '/evidence-images',
      imageForm((f) => f.append('caption', 'login page')),
    );
    expect(res.status).toBe(201);
    expect(await leftOnDisk()).toEqual([]);
  });

  it('answer 400 naming the field for a second file part, with nothing left on disk', async () => {
    const res = await actor.api.post(
      '/evidence-images',
      imageForm((f) => f.append('file', new Blob([PNG], { type: 'image/png' }), 'second.png')),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'validation_failed',
      details: [{ path: '/file', message: 'holds more than one file; send exactly one' }],
    });
    const scan = new FormData();
    scan.append('file', new Blob(['<NessusClientData_v2/>'], { type: 'application/xml' }), 'a.nessus');
    scan.append('file', new Blob(['<NessusClientData_v2/>'], { type: 'application/xml' }), 'b.nessus');
    const scanRes = await actor.api.post(`/reports/${reportId}/import-scan`, scan);
    expect(scanRes.status).toBe(400);
    expect(scanRes.body.error.details[0].path).toBe('/file');
    expect(await leftOnDisk()).toEqual([]);
  });

  it('answer 400 naming the field for U+0000 in a form field (an evidence caption)', async () => {
    const res = await actor.api.post(
      '/evidence-images',
      imageForm((f) => f.append('caption', 'before\u0000after')),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: '/caption', message: 'must not contain the character U+0000 (NUL)' },
    ]);
    expect(await leftOnDisk()).toEqual([]);
  });

  it('answer 400 when the required file is missing or sent as a text field, on every upload operation', async () => {
    const style = await actor.api.post('/style-library', { name: 'Needs a file' });
    const uploads: Array<[method: string, path: string, fields: Record<string, string>]> = [
      ['POST', '/evidence-images', { findingId }],
      ['PUT', `/style-library/${style.body.id}/word-template`, {}],
      ['POST', `/reports/${reportId}/import-scan-file`, {}],
      ['POST', `/reports/${reportId}/import-scan`, { format: 'nessus' }],
      ['POST', '/reports/import-markdown-file', {}],
      ['POST', '/reports/import-markdown', {}],
    ];
    for (const [method, path, fields] of uploads) {
      const missing = new FormData();
      for (const [k, v] of Object.entries(fields)) missing.append(k, v);
      const res = await actor.api.request(method, path, { body: missing });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.error.details, `${method} ${path}`).toEqual([{ path: '/file', message: 'is required' }]);
      const asText = new FormData();
      for (const [k, v] of Object.entries(fields)) asText.append(k, v);
      asText.append('file', 'not a file part');
      const text = await actor.api.request(method, path, { body: asText });
      expect(text.status, `${method} ${path}`).toBe(400);
      expect(text.body.error.details[0].path).toBe('/file');
    }
    expect(await leftOnDisk()).toEqual([]);
  });

  it('take scanner and Markdown files on their own operations, and on the JSON operations as before', async () => {
    const nuclei = JSON.stringify({
      'template-id': 'tech-detect',
      info: { name: 'Technology detected', severity: 'low' },
      host: 'a.example',
      'matched-at': 'https://a.example/',
    });
    for (const path of [`/reports/${reportId}/import-scan-file`, `/reports/${reportId}/import-scan`]) {
      const form = new FormData();
      form.append('file', new Blob([nuclei], { type: 'application/json' }), 'scan.jsonl');
      const res = await actor.api.post(path, form);
      expect(res.status, path).toBe(200);
      expect(res.body.format).toBe('nuclei');
    }
    const markdown = await fetch(`${app.url}/rest/v1/reports/${reportId}/export-markdown`, {
      headers: { authorization: `Bearer ${actor.key}` },
    }).then((r) => r.text());
    for (const path of ['/reports/import-markdown-file', '/reports/import-markdown']) {
      const form = new FormData();
      form.append('file', new Blob([markdown], { type: 'text/markdown' }), 'report.md');
      const res = await actor.api.post(path, form);
      expect(res.status, path).toBe(201);
      expect(res.headers.get('location')).toBe(`${app.url}/rest/v1/reports/${res.body.reportId}`);
    }
    // The form's defaults are what the import does without them: `format=auto` detects by content.
    const defaults = new FormData();
    defaults.append('file', new Blob([nuclei], { type: 'application/json' }), 'scan.jsonl');
    defaults.append('format', 'auto');
    defaults.append('minSeverity', 'info');
    const detected = await actor.api.post(`/reports/${reportId}/import-scan-file`, defaults);
    expect(detected.status).toBe(200);
    expect(detected.body).toMatchObject({ format: 'nuclei', skipped: 0 });
    // The file operations take only the upload: JSON there is 415, as on any upload.
    const json = await actor.api.post(`/reports/${reportId}/import-scan-file`, { findings: [] });
    expect(json.status).toBe(415);
    expect(await leftOnDisk()).toEqual([]);
  });

  it('are not read at all without a valid key', async () => {
    const big = new FormData();
    big.append('findingId', findingId);
    big.append('file', new Blob([new Uint8Array(2 * 1024 * 1024)], { type: 'image/png' }), 'big.png');
    const res = await httpClient(`${app.url}/rest/v1`).post('/evidence-images', big);
    expect(res.status).toBe(401);
    expect(await leftOnDisk()).toEqual([]);
  });
});
