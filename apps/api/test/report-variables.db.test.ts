// A report made from each library report template reaches a client with no placeholder: before its
// document control is set, the export names every variable without a value (X-Export-Warnings and
// GET export-warnings); once set, none is left, and its DOCX holds neither a bracketed placeholder
// nor a variable. The retest templates' variables are filled from the retest (its results, the
// original report's title and date).
import PizZip from 'pizzip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let actor: Actor;
let projectId: string;
const templates = new Map<string, string>();

const DOCUMENT_CONTROL = {
  preparedBy: 'Example Security GmbH',
  authors: [{ name: 'Ann Author', role: 'Lead tester', email: 'ann@example-security.com' }],
  reviewers: [{ name: 'Rita Reviewer', role: 'Quality assurance' }],
  distribution: [{ name: 'Carl Client', role: 'CISO', organization: 'Variable Walk Ltd' }],
  versionHistory: [
    { version: '0.1', date: '2024-03-09', author: 'Ann Author', change: 'Draft for review' },
    { version: '1.0', date: '2024-03-12', author: 'Ann Author', change: 'Final report' },
  ],
};

beforeAll(async () => {
  app = await startTestApp();
  actor = await createActor(app, { role: 'admin' });
  const clientId = (await actor.api.post('/clients', { name: 'Variable Walk Ltd' })).body.id;
  await actor.allow(clientId);
  projectId = (
    await actor.api.post('/projects', { clientId, name: 'Shop 2024', startDate: '2024-03-04', endDate: '2024-03-08' })
  ).body.id;
  for (const t of (await actor.api.get('/report-templates?origin=global&per_page=100')).body)
    templates.set(t.globalKey, t.id);
});
afterAll(async () => {
  await app?.stop();
});

const download = (reportId: string) =>
  fetch(`${app.url}/rest/v1/reports/${reportId}/export-docx`, { headers: { authorization: `Bearer ${actor.key}` } });

async function documentText(res: Response): Promise<string> {
  const xml = new PizZip(new Uint8Array(await res.arrayBuffer())).file('word/document.xml')?.asText() ?? '';
  return xml.replace(/<[^>]+>/g, '');
}

/** The DOCX holds no variable and no bracketed placeholder (a Markdown link's text is not one). */
function expectNoPlaceholder(text: string, template: string): void {
  expect(text, template).not.toContain('{{');
  expect(text.match(/\[[^\]\d][^\]]{0,40}\]/g) ?? [], template).toEqual([]);
}

async function reportFrom(key: string, title: string): Promise<string> {
  const created = await actor.api.post('/reports', { projectId, title, templateId: templates.get(key) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await actor.api.post('/findings', { reportId: created.body.id, title: 'SQL injection', severity: 'high' });
  return created.body.id;
}

describe('a report from a library report template', () => {
  it.each([
    'penetration-test-report',
    'penetration-test-report-de',
    'vulnerability-assessment-report',
    'vulnerability-assessment-report-de',
  ])('%s names what it lacks, then reaches the client filled', async (key) => {
    const reportId = await reportFrom(key, `From ${key}`);
    const before = await download(reportId);
    expect(before.status).toBe(200);
    const warnings = (await actor.api.get(`/reports/${reportId}/export-warnings`)).body.warnings;
    expect(Number(before.headers.get('x-export-warnings'))).toBe(warnings.length);
    expect(new Set(warnings.map((w: { variable: string }) => w.variable))).toEqual(
      new Set(['preparedBy', 'authors', 'reviewers', 'versionHistory', 'distribution']),
    );
    expect(warnings[0].message).toMatch(/^tab ".+": \{\{\w+\}\} has no value: set the report's `\w+`$/);

    expect((await actor.api.patch(`/reports/${reportId}`, DOCUMENT_CONTROL)).status).toBe(200);
    expect((await actor.api.get(`/reports/${reportId}/export-warnings`)).body.warnings).toEqual([]);
    const after = await download(reportId);
    expect(after.headers.get('x-export-warnings')).toBe('0');
    const text = await documentText(after);
    expectNoPlaceholder(text, key);
    expect(text).toContain('Variable Walk Ltd');
    expect(text).toContain('Example Security GmbH');
    expect(text).toContain('Final report');
    expect(text).toContain('Carl Client');
  });

  it.each([
    ['en', 'retest-report'],
    ['de', 'retest-report-de'],
  ])('a retest (%s) takes its variables from the retest and the report it follows', async (language, key) => {
    const original = await reportFrom(
      language === 'de' ? 'penetration-test-report-de' : 'penetration-test-report',
      'The original',
    );
    await actor.api.patch(`/reports/${original}`, { ...DOCUMENT_CONTROL, language });
    const retest = await actor.api.post(`/reports/${original}/retests`, {});
    expect(retest.status, JSON.stringify(retest.body)).toBe(201);
    expect(retest.body.templateId).toBe(templates.get(key));
    const warnings = (await actor.api.get(`/reports/${retest.body.id}/export-warnings`)).body.warnings;
    // The retest inherits the document control's people; its versions and its days are its own.
    expect(new Set(warnings.map((w: { variable: string }) => w.variable))).toEqual(
      new Set(['versionHistory', 'retestStartDate', 'retestEndDate']),
    );
    const results = (await actor.api.get(`/retest-results?report_id=${retest.body.id}`)).body;
    for (const r of results)
      expect((await actor.api.patch(`/retest-results/${r.id}`, { status: 'resolved' })).status).toBe(200);
    await actor.api.patch(`/reports/${retest.body.id}`, {
      versionHistory: [{ version: '1.0', date: '2024-05-03', author: 'Ann Author', change: 'Retest report' }],
    });
    expect((await actor.api.get(`/reports/${retest.body.id}/export-warnings`)).body.warnings).toEqual([]);
    const text = await documentText(await download(retest.body.id));
    expectNoPlaceholder(text, key);
    expect(text).toContain('The original');
    expect(text).toContain(language === 'de' ? '12. März 2024' : 'March 12, 2024');
  });
});
