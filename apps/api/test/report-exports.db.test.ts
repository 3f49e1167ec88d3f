import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import PizZip from 'pizzip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let member: Actor;
// Filled in by beforeAll.
const ids = {} as Record<'client' | 'project' | 'report', string>;

beforeAll(async () => {
  app = await startTestApp();
  const creator = await createActor(app, { role: 'member' });
  ids.client = (await creator.api.post('/clients', { name: 'Export Corp' })).body.id;
  member = await createActor(app, { role: 'member', clientIds: [ids.client] });
  ids.project = (
    await member.api.post('/projects', {
      clientId: ids.client,
      name: 'Exports',
      startDate: '2026-11-02',
      endDate: '2026-11-13',
    })
  ).body.id;
  ids.report = (await member.api.post('/reports', { projectId: ids.project, title: 'Q4 test: "external"' })).body.id;
  await member.api.post('/findings', {
    reportId: ids.report,
    title: 'First',
    severity: 'critical',
    cves: ['CVE-2021-44228'],
    affectedAssets: [{ host: 'a.example', port: 443, protocol: 'tcp' }],
  });
  await member.api.post('/findings', {
    reportId: ids.report,
    title: '=cmd|" /C calc"!A0',
    severity: 'low',
    description: '@SUM(1+1)',
  });
  await member.api.post('/report-tabs', {
    reportId: ids.report,
    title: 'Executive summary',
    content: '## Summary\n\nWe tested **everything**.\n\n---\n\n# Not a marker\n\n```\n---\n```',
  });
  await member.api.post('/report-tabs', {
    reportId: ids.report,
    title: 'مرحبا',
    content: 'Text with ✅ emoji, e\u0301 and `<!-- our marker? -->`',
  });
  await member.api.post('/report-links', { reportId: ids.report, title: 'Ticket', url: 'https://tickets.example/T-1' });
  const f = await member.api.post('/findings', {
    reportId: ids.report,
    title: 'Weak TLS',
    severity: 'medium',
    cvss: [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N', baseScore: 5.9 }],
    cwes: [326],
    references: ['https://example.org/tls'],
    affectedAssets: [{ host: 'a.example', port: 443, protocol: 'tcp', evidence: 'TLSv1.0 enabled\nsecond line' }],
    remediation: 'Disable TLS 1.0.',
  });
  const form = new FormData();
  form.set('findingId', f.body.id);
  form.set('caption', 'Handshake with TLS 1.0');
  form.set('file', new Blob([PNG]), 'tls.png');
  expect((await member.api.post('/evidence-images', form)).status).toBe(201);
});

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

async function exportMarkdown(reportId: string): Promise<string> {
  const res = await member.api.get(`/reports/${reportId}/export-markdown`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
  return res.text;
}

describe('Markdown export and import', () => {
  it(
    'export -> import -> export gives the same bytes, evidence re-linked, in the ' + 'project named by the file',
    async () => {
      const first = await exportMarkdown(ids.report);
      const imported = await member.api.post('/reports/import-markdown', { markdown: first });
      expect(imported.status, imported.text).toBe(201);
      expect(imported.headers.get('location')).toBe(`${app.url}/rest/v1/reports/${imported.body.reportId}`);
      expect(imported.body).toMatchObject({
        projectId: ids.project,
        tabs: 2,
        links: 1,
        findings: 3,
        evidenceLinked: 1,
        warnings: [],
      });
      expect(await exportMarkdown(imported.body.reportId)).toBe(first);
      const images = await member.api.get(`/evidence-images?q=tls`);
      expect(images.body.length).toBe(2);
    },
  );

  it("a person's edit in a text editor survives import and shows up alone in the next export", async () => {
    const first = await exportMarkdown(ids.report);
    const edited = first.replace('Disable TLS 1.0.', 'Disable TLS 1.0 and TLS 1.1 on every listener.');
    expect(edited).not.toBe(first);
    const form = new FormData();
    form.set('projectId', ids.project);
    form.set('file', new Blob([edited]), 'report.md');
    const imported = await member.api.post('/reports/import-markdown', form);
    expect(imported.status, imported.text).toBe(201);
    expect(await exportMarkdown(imported.body.reportId)).toBe(edited);
  });

  it('answers 422 invalid_markdown with line and column, and creates nothing', async () => {
    const before = (await member.api.get('/reports?per_page=1')).headers.get('x-total-count');
    const first = await exportMarkdown(ids.report);
    const broken = first.replace(/severity: medium/, 'severity: catastrophic');
    const res = await member.api.post('/reports/import-markdown', { markdown: broken, projectId: ids.project });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('invalid_markdown');
    expect(res.body.error.message).toMatch(/^line \d+, column \d+: /);
    expect(res.body.error.details[0]).toMatchObject({ path: expect.any(String), message: expect.any(String) });
    const garbage = await member.api.post('/reports/import-markdown', { markdown: 'just some text\n' });
    expect(garbage.status).toBe(422);
    expect((await member.api.get('/reports?per_page=1')).headers.get('x-total-count')).toBe(before);
  });

  it(
    'needs a visible project: 422 invalid_reference when none matches the file, and ' + 'honours Idempotency-Key',
    async () => {
      const first = await exportMarkdown(ids.report);
      const elsewhere = first.replace(/^client: .*$/m, 'client: Nobody Ltd');
      const none = await member.api.post('/reports/import-markdown', { markdown: elsewhere });
      expect([none.status, none.body.error.code]).toEqual([422, 'invalid_reference']);
      const headers = { 'Idempotency-Key': 'md-import-1' };
      const a = await member.api.post(
        '/reports/import-markdown',
        { markdown: first, projectId: ids.project },
        { headers },
      );
      const b = await member.api.post(
        '/reports/import-markdown',
        { markdown: first, projectId: ids.project },
        { headers },
      );
      expect(b.body.reportId).toBe(a.body.reportId);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
    },
  );

  it('answers 404 for an export the caller cannot see', async () => {
    const external = await createActor(app, { role: 'external' });
    expect((await external.api.get(`/reports/${ids.report}/export-markdown`)).status).toBe(404);
  });
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /reports/{id}/export-csv', () => {
  it('streams one row per finding with a header, as an attachment', async () => {
    const res = await fetch(`${app.url}/rest/v1/reports/${ids.report}/export-csv`, {
      headers: { authorization: `Bearer ${member.key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="Q4 test external.csv"; filename\*=UTF-8''/,
    );
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const csv = new TextDecoder().decode(bytes);
    const lines = csv.split('\r\n').filter((l) => l);
    expect(lines[0]).toMatch(/^Number,Title,Severity/);
    expect(lines[1]).toMatch(/^1,First,critical,open/);
    expect(csv).toContain(`"'=cmd|"" /C calc""!A0"`);
    expect(csv).toContain(`'@SUM(1+1)`);
    expect(csv).not.toMatch(/,=cmd/);
  });

  it('answers 404 for a report the caller cannot see', async () => {
    const external = await createActor(app, { role: 'external' });
    expect((await external.api.get(`/reports/${ids.report}/export-csv`)).status).toBe(404);
  });
});

describe('DOCX export and Word templates', () => {
  const EXAMPLE_TEMPLATE = readFileSync(
    path.resolve(
      path.dirname(fileURLToPath(import.meta.url)),
      '../../../library/report-styles/word-template-example.docx',
    ),
  );

  async function download(reportId: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
    const res = await fetch(`${app.url}/rest/v1/reports/${reportId}/export-docx`, {
      headers: { authorization: `Bearer ${member.key}` },
    });
    return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  }

  function documentXml(docx: Buffer): string {
    return new PizZip(docx).file('word/document.xml')!.asText();
  }

  it('exports our own layout as a Word document holding the report', async () => {
    const res = await download(ids.report);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(res.bytes.subarray(0, 2).toString()).toBe('PK');
    const xml = documentXml(res.bytes);
    expect(xml).toContain('Weak TLS');
    expect(xml).toContain('Executive summary');
  });

  it("uploads the firm's Word template, lints it, and fills it on export", async () => {
    const style = await member.api.post('/style-library', { name: 'Firm template' });
    const form = new FormData();
    form.set('file', new Blob([EXAMPLE_TEMPLATE]), 'firm.docx');
    const uploaded = await member.api.request('PUT', `/style-library/${style.body.id}/word-template`, { body: form });
    expect(uploaded.status, uploaded.text).toBe(200);
    expect(uploaded.body.style.wordTemplate).toMatchObject({ fileName: 'firm.docx', size: EXAMPLE_TEMPLATE.length });
    expect((await member.api.patch(`/reports/${ids.report}`, { styleId: style.body.id })).status).toBe(200);
    const res = await download(ids.report);
    expect(res.status).toBe(200);
    expect(documentXml(res.bytes)).toContain('Weak TLS');
    const back = await fetch(`${app.url}/rest/v1/style-library/${style.body.id}/word-template`, {
      headers: { authorization: `Bearer ${member.key}` },
    });
    expect(Buffer.from(await back.arrayBuffer()).equals(EXAMPLE_TEMPLATE)).toBe(true);
    expect((await member.api.delete(`/style-library/${style.body.id}/word-template`)).status).toBe(204);
    await member.api.patch(`/reports/${ids.report}`, { styleId: null });
  });

  it(
    'refuses a broken or hostile template with 422 invalid_template listing every ' + 'problem, storing nothing',
    async () => {
      const style = await member.api.post('/style-library', { name: 'Broken' });
      for (const bytes of [Buffer.from('not a zip at all'), Buffer.from('PK\u0003\u0004garbage')]) {
        const form = new FormData();
        form.set('file', new Blob([bytes]), 'bad.docx');
        const res = await member.api.request('PUT', `/style-library/${style.body.id}/word-template`, { body: form });
        expect(res.status).toBe(422);
        expect(res.body.error.code).toBe('invalid_template');
        expect(res.body.error.details.length).toBeGreaterThan(0);
      }
      expect((await member.api.get(`/style-library/${style.body.id}`)).body.wordTemplate).toBeNull();
    },
  );
});
