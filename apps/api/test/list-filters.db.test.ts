// Driven by the published document, as a client generator or a fuzzer reads it: every list of the
// REST API, with each query parameter it declares, sent alone with a valid value (every value of an
// enumeration, both booleans), answers 200. This is the test that found `edited=true` refused with
// "must be boolean" on the library lists.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetMs } from '@service/test-lanes';
import { httpClient } from './support/http-client.ts';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { schemaArbitrary } from './support/schema-arbitrary.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

type Schema = Record<string, unknown>;
type Parameter = { name: string; in: string; schema: Schema };
type Operation = {
  parameters?: Array<Parameter | { $ref: string }>;
  security?: Array<Record<string, unknown>>;
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

let app: TestApp;
let admin: Actor;
let doc: Doc;
/** A visible row per resource, for lists under `/{resource}/{id}/...`. */
const rows: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp();
  admin = await createActor(app, { role: 'admin' });
  doc = (await httpClient(app.url).get('/api/rest-docs/openapi')).body;
  rows.clients = (await admin.api.post('/clients', { name: 'Filter Corp' })).body.id;
  rows.projects = (await admin.api.post('/projects', { clientId: rows.clients, name: 'Filters' })).body.id;
  rows.reports = (await admin.api.post('/reports', { projectId: rows.projects, title: 'Filtered' })).body.id;
});
afterAll(async () => {
  await app?.stop();
});

/** Every value worth sending for a parameter: each enumeration value, both booleans, or one valid sample. */
function valuesOf(schema: Schema): string[] {
  const resolved =
    typeof schema.$ref === 'string' ? doc.components.schemas[schema.$ref.split('/').pop()!]! : (schema as Schema);
  if (Array.isArray(resolved.enum)) return resolved.enum.map(String);
  if (resolved.type === 'boolean') return ['true', 'false'];
  const [sample] = fc.sample(schemaArbitrary(resolved, doc.components.schemas), { numRuns: 1, seed: 21 });
  return [String(sample)];
}

describe('every list of the REST API', () => {
  // About 200 requests, some of them pages of the whole library.
  it('answers 200 to each query parameter it declares, sent alone with a valid value', {
    timeout: budgetMs(200, 300),
  }, async () => {
    const api = httpClient(app.url, { token: admin.key });
    const lists = Object.entries(doc.paths).flatMap(([path, methods]) => {
      const op = methods.get;
      const body = op?.responses['200']?.content?.['application/json']?.schema;
      const rest = op?.security?.some((s) => 'apiKey' in s) ?? false;
      return op && rest && body?.type === 'array' ? [{ path, op }] : [];
    });
    expect(lists.map((l) => l.path)).toEqual(
      expect.arrayContaining(['/rest/v1/findings', '/rest/v1/library', '/rest/v1/finding-library', '/rest/v1/users']),
    );
    const failures: string[] = [];
    let sent = 0;
    for (const { path, op } of lists) {
      const url = path.replace(/\/([a-z-]+)\/\{id\}/g, (_, resource: string) => `/${resource}/${rows[resource]}`);
      const query = (op.parameters ?? []).filter((p): p is Parameter => 'in' in p && p.in === 'query');
      const requests: Array<Array<[string, string]>> = [
        [],
        ...query.flatMap((p) => valuesOf(p.schema).map((v): Array<[string, string]> => [[p.name, v]])),
      ];
      for (const params of requests) {
        const target = `${url}${params.length ? `?${new URLSearchParams(params)}` : ''}`;
        const res = await api.get(target);
        sent += 1;
        if (res.status !== 200) failures.push(`GET ${target} -> ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(100);
  });

  it('filters by edited on the library lists: only rows with that value, and both together are all', async () => {
    const api = httpClient(app.url, { token: admin.key });
    const [template] = (await api.get('/rest/v1/finding-library?origin=global&per_page=1')).body;
    expect(
      (await api.patch(`/rest/v1/finding-library/${template.id}`, { title: `${template.title} (ours)` })).status,
    ).toBe(200);
    for (const list of ['finding-library', 'narratives', 'style-library']) {
      const all = Number((await api.get(`/rest/v1/${list}?per_page=1`)).headers.get('x-total-count'));
      let counted = 0;
      for (const edited of [true, false]) {
        const page = await api.get(`/rest/v1/${list}?edited=${edited}&per_page=100`);
        expect(page.status).toBe(200);
        expect(page.body.every((row: { edited: boolean }) => row.edited === edited)).toBe(true);
        counted += Number(page.headers.get('x-total-count'));
      }
      expect(counted, list).toBe(all);
    }
    expect((await api.get('/rest/v1/finding-library?edited=true')).body.map((r: { id: string }) => r.id)).toEqual([
      template.id,
    ]);
  });
});
