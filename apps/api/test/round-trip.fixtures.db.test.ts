import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetMs, laneSize } from '@service/test-lanes';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { schemaArbitrary } from './support/schema-arbitrary.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';
import { pngOfColour } from './support/png.ts';

// The round-trip contract (issue 8): every representation the API returns can be sent back.
// For every resource with PATCH, the GET body restricted to the PATCH schema's fields is
// accepted and changes nothing, whatever the row holds.

const SCANS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/fixtures/scans');
// Why a whole image: uploads are decoded to the end, and a truncated one is refused.
const PNG = pngOfColour(1, 2, 3);

type Schema = Record<string, unknown>;
interface Doc {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
}

let app: TestApp;
let editor: Actor;
let doc: Doc;
const RESOURCES = [
  'clients',
  'projects',
  'reports',
  'report-tabs',
  'findings',
  'report-findings',
  'report-links',
  'finding-library',
  'style-library',
  'report-templates',
  'narratives',
  'scoping-templates',
  'project-types',
  'evidence-images',
  'retest-results',
] as const;
type Resource = (typeof RESOURCES)[number];

// Filled in by beforeAll: one row of each resource.
const ids = {} as Record<Resource, string>;

beforeAll(async () => {
  app = await startTestApp();
  const creator = await createActor(app, { role: 'admin' });
  ids.clients = (await creator.api.post('/clients', { name: 'Round Trip Ltd' })).body.id;
  // Why a second key: edits need the client on the key's allow-list; the first key created the client.
  editor = await createActor(app, { role: 'admin', clientIds: [ids.clients] });
  const api = editor.api;
  ids.projects = (await api.post('/projects', { clientId: ids.clients, name: 'Round trip' })).body.id;
  ids['style-library'] = (await api.post('/style-library', { name: 'Plain' })).body.id;
  ids['report-templates'] = (
    await api.post('/report-templates', { name: 'Template', tabs: [{ title: 'Scope' }] })
  ).body.id;
  ids.reports = (await api.post('/reports', { projectId: ids.projects, title: 'Report' })).body.id;
  ids['report-tabs'] = (await api.post('/report-tabs', { reportId: ids.reports, title: 'Scope' })).body.id;
  ids['report-links'] = (
    await api.post('/report-links', { reportId: ids.reports, title: 'Ticket', url: 'https://tickets.example/1' })
  ).body.id;
  ids.findings = (await api.post('/findings', { projectId: ids.projects, title: 'Finding', severity: 'low' })).body.id;
  ids['report-findings'] = (
    await api.post('/report-findings', { reportId: ids.reports, findingId: ids.findings })
  ).body.id;
  ids['finding-library'] = (await api.post('/finding-library', { title: 'Template', severity: 'medium' })).body.id;
  ids.narratives = (await api.post('/narratives', { title: 'Methodology', category: 'methodology' })).body.id;
  ids['scoping-templates'] = (await api.post('/scoping-templates', { name: 'Web' })).body.id;
  ids['project-types'] = (await api.post('/project-types', { name: 'Web test' })).body.id;
  const form = new FormData();
  form.set('findingId', ids.findings);
  form.set('file', new Blob([PNG]), 'pixel.png');
  ids['evidence-images'] = (await api.post('/evidence-images', form)).body.id;
  const retest = (await api.post(`/reports/${ids.reports}/retests`, {})).body.id;
  ids['retest-results'] = (await api.get(`/retest-results?report_id=${retest}`)).body[0].id;
  doc = (await (await fetch(`${app.url}/api/rest-docs/openapi`)).json()) as Doc;
});
afterAll(async () => {
  await app?.stop();
});

/** The names PATCH accepts for a resource, and its body schema, from the published document. */
function patchSchemaOf(name: string): { schema: Schema; fields: string[] } {
  const body = doc.paths[`/rest/v1/${name}/{id}`]!.patch!.requestBody!.content['application/json']!.schema;
  const schema = typeof body.$ref === 'string' ? doc.components.schemas[body.$ref.split('/').pop()!]! : body;
  return { schema, fields: Object.keys(schema.properties as object).filter((k) => k !== 'expectedUpdatedAt') };
}

function restrict(body: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => f in body).map((f) => [f, body[f]]));
}

/** GET, send the GET body's PATCH fields back, and expect 200 with nothing changed (not even updatedAt). */
async function expectSendsBack(name: string, id: string): Promise<void> {
  const { fields } = patchSchemaOf(name);
  const before = await editor.api.get(`/${name}/${id}`);
  expect(before.status).toBe(200);
  const back = await editor.api.patch(`/${name}/${id}`, restrict(before.body, fields));
  expect(back.status, `${name}: ${JSON.stringify(back.body).slice(0, 500)}`).toBe(200);
  expect(back.body).toEqual(before.body);
  expect((await editor.api.get(`/${name}/${id}`)).body).toEqual(before.body);
}

describe('GET body restricted to PATCH fields is accepted and changes nothing', () => {
  it('covers every resource that has PATCH', () => {
    const withPatch = Object.entries(doc.paths)
      .filter(([p, ops]) => p.startsWith('/rest/v1/') && ops.patch)
      .map(([p]) => p.split('/')[3]);
    expect(new Set(withPatch)).toEqual(new Set(RESOURCES));
  });

  it.each(RESOURCES)('%s, over generated rows', async (name) => {
    const { schema, fields } = patchSchemaOf(name);
    // Ids that must name existing rows are drawn from rows that exist.
    const overrides: Record<string, fc.Arbitrary<unknown>> = {
      '/expectedUpdatedAt': fc.constant(undefined),
      '/styleId': fc.constantFrom(ids['style-library'], null),
      '/logoImageId': fc.constantFrom(ids['evidence-images'], null),
      '/reportTemplateId': fc.constantFrom(ids['report-templates'], null),
      '/retestReportTemplateId': fc.constantFrom(ids['report-templates'], null),
      '/scopingTemplateId': fc.constantFrom(ids['scoping-templates'], null),
      // Title patterns are checked for what a schema cannot say (they must compile, no nested repeats).
      '/titlePatterns': fc.constant({ nessus: ['^PHP < \\d'] }),
      '/scannerRules': fc.constant(['nessus:57608', 'nuclei:git-config']),
      // A severity and a CVSS drawn apart from each other disagree; the reason makes that allowed.
      '/severityReason': fc.constant("Rated by the client's own policy"),
      // A report finding's position is kept within its report's findings (0..n-1; its report has one).
      ...(name === 'report-findings' ? { '/position': fc.constant(0) } : {}),
    };
    const arbitrary = schemaArbitrary(schema, doc.components.schemas, overrides) as fc.Arbitrary<
      Record<string, unknown>
    >;
    await fc.assert(
      fc.asyncProperty(arbitrary, async (body) => {
        const changed = await editor.api.patch(`/${name}/${ids[name]}`, body);
        expect(
          changed.status,
          `${name} PATCH ${JSON.stringify(body).slice(0, 300)} -> ${JSON.stringify(changed.body).slice(0, 300)}`,
        ).toBe(200);
        for (const f of fields) if (body[f] !== undefined) expect(changed.body[f], f).toEqual(body[f]);
        await expectSendsBack(name, ids[name]);
      }),
      { numRuns: laneSize(12, 4) },
    );
  });
});

describe('findings imported from every fixture can be sent back', () => {
  const files = (['nessus', 'burp', 'nmap', 'nuclei'] as const).flatMap((format) =>
    readdirSync(path.join(SCANS, format)).map((f) => `${format}/${f}`),
  );

  // Every imported finding is sent back in CI, the first ten of each file elsewhere.
  const sentBack = laneSize(Number.POSITIVE_INFINITY, 10);
  const expected = JSON.parse(readFileSync(path.join(SCANS, 'EXPECTED.json'), 'utf8')) as {
    files: Record<string, { findings?: number }>;
  };
  const work = (file: string) => 1 + Math.min(expected.files[file]?.findings ?? 100, sentBack);

  for (const file of files)
    it(file, { timeout: budgetMs(work(file), 1_000) }, async () => {
      const bytes = readFileSync(path.join(SCANS, file));
      if (bytes.length === 0) return;
      const reportId = (await editor.api.post('/reports', { projectId: ids.projects, title: file })).body.id;
      const form = new FormData();
      form.set('file', new Blob([bytes]), path.basename(file));
      const imported = await editor.api.post(`/reports/${reportId}/import-scan`, form);
      expect(imported.status, JSON.stringify(imported.body).slice(0, 300)).toBe(200);
      const findings = (imported.body.findings as Array<{ id: string | null }>).flatMap((f) => (f.id ? [f.id] : []));
      for (const id of findings.slice(0, sentBack)) await expectSendsBack('findings', id);
    });
});
