// Every field of the report model's report, tab, link and project declarations travels every path
// it takes: its column in the tenant database, create and GET, PATCH, the OpenAPI examples, the
// Markdown export and import (creating a report from a document), and for report fields the next
// round of a retest, which inherits, empties or sets each as the field declares. A field added to a
// declaration is walked here by itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LINK,
  PROJECT,
  REPORT,
  REPORT_PROJECT,
  TAB,
  type DeclaredFields,
  type FieldDeclarations,
  type ReportFieldDeclaration,
} from '@service/report-model';
import {
  sampleLink,
  sampleLinkFieldValue,
  sampleProjectFieldValue,
  sampleReportFields,
  sampleReportFieldValue,
  sampleTab,
  sampleTabFieldValue,
} from '@service/report-model/testing';
import { httpClient } from './support/http-client.ts';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let actor: Actor;
let clientId: string;
let projectId: string;

const projectSample = (variant: 1 | 2) =>
  Object.fromEntries(PROJECT.names.map((n) => [n, sampleProjectFieldValue(n, variant)]));

beforeAll(async () => {
  app = await startTestApp();
  actor = await createActor(app, { role: 'admin' });
  clientId = (await actor.api.post('/clients', { name: 'Report Field Walk Ltd' })).body.id;
  await actor.allow(clientId);
  const project = await actor.api.post('/projects', { clientId, ...projectSample(1) });
  expect(project.status, JSON.stringify(project.body)).toBe(201);
  projectId = project.body.id;
});
afterAll(async () => {
  await app?.stop();
});

const markdownOf = (reportId: string) =>
  fetch(`${app.url}/rest/v1/reports/${reportId}/export-markdown`, {
    headers: { authorization: `Bearer ${actor.key}` },
  }).then((r) => r.text());

/** Creates a row with variant 1 of every field, reads it back, then changes each field to variant 2 by PATCH. */
async function walkCreateAndPatch<F extends FieldDeclarations>(
  path: string,
  declared: DeclaredFields<F>,
  sample: (name: keyof F & string, variant: 1 | 2) => unknown,
  parent: Record<string, unknown>,
): Promise<void> {
  const values = Object.fromEntries(declared.names.map((n) => [n, sample(n, 1)]));
  const created = await actor.api.post(path, { ...parent, ...values });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const read = (await actor.api.get(`${path}/${created.body.id}`)).body;
  for (const name of declared.names) expect(read[name], `${path} ${name}`).toEqual(sample(name, 1));
  for (const name of declared.names) {
    const patched = await actor.api.patch(`${path}/${read.id}`, { [name]: sample(name, 2) });
    if (declared.declarations[name]!.immutable) {
      expect(patched.status, name).toBe(400);
      continue;
    }
    expect(patched.status, `${path} ${name}: ${JSON.stringify(patched.body)}`).toBe(200);
    expect(patched.body[name], `${path} ${name}`).toEqual(sample(name, 2));
  }
}

describe('every report, tab, link and project field', () => {
  it('has its column in the migrated tenant database', async () => {
    const columnsOf = async (table: string) =>
      new Set(
        (
          await app.dbs
            .tenant('information_schema.columns')
            .where({ table_schema: 'public', table_name: table })
            .select('column_name')
        ).map((r: { column_name: string }) => r.column_name),
      );
    for (const [table, declared] of [
      ['reports', REPORT],
      ['report_tabs', TAB],
      ['report_links', LINK],
      ['projects', PROJECT],
    ] as const) {
      const columns = await columnsOf(table);
      for (const column of declared.columns) expect(columns, `${table}.${column}`).toContain(column);
    }
  });

  it('is stored on create and read back by GET, and changed by PATCH', async () => {
    await walkCreateAndPatch('/reports', REPORT, sampleReportFieldValue, { projectId });
    const reportId = (await actor.api.post('/reports', { projectId, title: 'Parts walk' })).body.id;
    await walkCreateAndPatch('/report-tabs', TAB, sampleTabFieldValue, { reportId });
    await walkCreateAndPatch('/report-links', LINK, sampleLinkFieldValue, { reportId });
    await walkCreateAndPatch('/projects', PROJECT, sampleProjectFieldValue, { clientId });
  });

  it('is in the OpenAPI examples of reports, tabs, links and projects, which match their schemas', async () => {
    const res = await httpClient(app.url).get('/api/rest-docs/openapi');
    expect(res.status).toBe(200);
    const schemas = res.body.components.schemas as Record<string, { properties: Record<string, unknown> }>;
    const examples: Record<string, Array<Record<string, unknown>>> = {};
    for (const methods of Object.values(res.body.paths as Record<string, Record<string, unknown>>))
      for (const op of Object.values(methods) as Array<{ responses?: Record<string, unknown> }>)
        for (const response of Object.values(op.responses ?? {}) as Array<{
          content?: Record<string, { schema?: { $ref?: string; items?: { $ref?: string } }; example?: unknown }>;
        }>) {
          const json = response.content?.['application/json'];
          const ref = json?.schema?.$ref ?? json?.schema?.items?.$ref;
          if (!ref || json?.example === undefined) continue;
          const name = ref.split('/').pop() ?? ref;
          const list = Array.isArray(json.example) ? json.example : [json.example];
          examples[name] = [...(examples[name] ?? []), ...(list as Array<Record<string, unknown>>)];
        }
    for (const [schema, declared] of [
      ['Report', REPORT],
      ['ReportTab', TAB],
      ['ReportLink', LINK],
      ['Project', PROJECT],
    ] as const) {
      expect(examples[schema]?.length, schema).toBeGreaterThan(0);
      for (const name of declared.names) {
        expect(schemas[schema]!.properties, `${schema}.${name}`).toHaveProperty(name);
        for (const example of examples[schema]!) expect(example, `${schema} example: ${name}`).toHaveProperty(name);
      }
    }
  });

  it('survives a Markdown export and import (a report created from a document), byte for byte', async () => {
    const report = await actor.api.post('/reports', { projectId, ...sampleReportFields(1) });
    expect(report.status, JSON.stringify(report.body)).toBe(201);
    for (const variant of [1, 2] as const) {
      expect((await actor.api.post('/report-tabs', { reportId: report.body.id, ...sampleTab(variant) })).status).toBe(
        201,
      );
      expect((await actor.api.post('/report-links', { reportId: report.body.id, ...sampleLink(variant) })).status).toBe(
        201,
      );
    }
    const markdown = await markdownOf(report.body.id);
    for (const name of REPORT_PROJECT.names)
      expect(markdown, `project.${name}`).toContain(String(sampleProjectFieldValue(name, 1)).split(' ')[0]);
    const imported = await actor.api.post('/reports/import-markdown', { markdown, projectId });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const copy = (await actor.api.get(`/reports/${imported.body.reportId}`)).body;
    for (const name of REPORT.names) expect(copy[name], name).toEqual(sampleReportFieldValue(name, 1));
    const tabs = (await actor.api.get(`/report-tabs?report_id=${imported.body.reportId}`)).body;
    const links = (await actor.api.get(`/report-links?report_id=${imported.body.reportId}`)).body;
    for (const [i, variant] of [1, 2].entries()) {
      for (const name of TAB.names)
        expect(tabs[i][name], `tab ${name}`).toEqual(sampleTabFieldValue(name, variant as 1));
      for (const name of LINK.names)
        expect(links[i][name], `link ${name}`).toEqual(sampleLinkFieldValue(name, variant as 1));
    }
    expect(await markdownOf(imported.body.reportId)).toBe(markdown);
  });

  it('is inherited, emptied or set by the next round of a retest, as the field declares', async () => {
    const original = await actor.api.post('/reports', { projectId, ...sampleReportFields(1) });
    expect(original.status, JSON.stringify(original.body)).toBe(201);
    const retest = await actor.api.post(`/reports/${original.body.id}/retests`, { title: 'The retest' });
    expect(retest.status, JSON.stringify(retest.body)).toBe(201);
    for (const [name, f] of REPORT.entries as ReadonlyArray<readonly [string, ReportFieldDeclaration]>) {
      const expected = f.retest === 'inherit' ? original.body[name] : f.retest === 'empty' ? f.empty() : 'The retest';
      expect(retest.body[name], `${name} (${f.retest})`).toEqual(expected);
    }
  });
});
