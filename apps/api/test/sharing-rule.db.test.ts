// The sharing rule (DESIGN "Access"), walked through every list and get route of the REST API as
// the published document lists them: an external collaborator sees a project shared with them and
// everything in it, a report shared with them and everything in it (a finding through any report
// it sits in that is not in the trash), and nothing of the workspace (clients, libraries, trash,
// other users). Three externals: without shares, with a project, with a report. Every row an
// administrator sees is asked for by each of them: listed exactly where the rule says, 404 elsewhere.
import { DocxPdfConverter } from '@service/docx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetMs } from '@service/test-lanes';
import { httpClient } from './support/http-client.ts';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

type Row = Record<string, unknown> & { id: string };
interface Shares {
  projects: Set<string>;
  reports: Set<string>;
}
type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
/** Resources the rule can show an external collaborator; the others are the workspace's. */
const SHAREABLE = new Set([
  'projects',
  'reports',
  'findings',
  'report-tabs',
  'report-links',
  'report-findings',
  'retest-results',
  'evidence-images',
  'users',
]);
/** Rows of each workspace list asked for one by one (the library has hundreds; none is ever shown). */
const WORKSPACE_ROWS = 3;

let app: TestApp;
let admin: Actor;
let doc: Doc;
const ids: Record<string, string> = {};
const externals: Array<{ name: string; actor: Actor; shares: Shares }> = [];
/** Every row of each resource, as an administrator lists it. */
const rows: Record<string, Row[]> = {};

async function create(path: string, body: object | FormData): Promise<string> {
  const res = await admin.api.post(path, body);
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body.id;
}

function evidence(owner: Record<string, string>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(owner)) form.set(k, v);
  form.set('file', new Blob([PNG]), 'shot.png');
  return form;
}

/** Two projects of one client, reports in both, findings in one, two or no reports, and what hangs off them. */
async function buildWorkspace(): Promise<void> {
  ids.client = await create('/clients', { name: 'Shared Ltd' });
  await admin.allow(ids.client);
  ids.p1 = await create('/projects', { clientId: ids.client, name: 'Shared project' });
  ids.p2 = await create('/projects', { clientId: ids.client, name: 'Other project' });
  ids.r1 = await create('/reports', { projectId: ids.p1, title: 'Shared report' });
  ids.r2 = await create('/reports', { projectId: ids.p1, title: 'Sibling report' });
  ids.r3 = await create('/reports', { projectId: ids.p2, title: 'Other report' });
  ids.r4 = await create('/reports', { projectId: ids.p1, title: 'Trashed shared report' });
  ids.f1 = await create('/findings', { reportId: ids.r1, title: 'In the shared report', severity: 'high' });
  ids.f12 = await create('/findings', { reportId: ids.r1, title: 'In both reports', severity: 'medium' });
  await create('/report-findings', { reportId: ids.r2, findingId: ids.f12 });
  ids.f2 = await create('/findings', { reportId: ids.r2, title: 'In the sibling only', severity: 'low' });
  ids.f0 = await create('/findings', { projectId: ids.p1, title: 'In no report', severity: 'low' });
  ids.f3 = await create('/findings', { reportId: ids.r3, title: 'In the other project', severity: 'low' });
  ids.f4 = await create('/findings', { reportId: ids.r4, title: 'Only in the trashed report', severity: 'low' });
  for (const [report, n] of [
    [ids.r1, 1],
    [ids.r2, 2],
    [ids.r3, 3],
  ] as const) {
    const tab = await create('/report-tabs', { reportId: report, title: `Scope ${n}` });
    await create('/report-links', { reportId: report, title: `Ticket ${n}`, url: `https://tickets.example/${n}` });
    await create('/evidence-images', evidence({ reportTabId: tab }));
  }
  for (const finding of [ids.f1, ids.f2, ids.f0, ids.f3])
    await create('/evidence-images', evidence({ findingId: finding! }));
  // A retest round of the shared report: a report of its own, in the shared project, with results.
  ids.retest = await create(`/reports/${ids.r1}/retests`, {});
}

async function share(external: Actor, type: 'projects' | 'reports', id: string, access: 'view' | 'edit') {
  const res = await admin.api.post(`/${type}/${id}/shares`, { userId: external.user.id, access });
  expect(res.status, res.text).toBe(200);
}

beforeAll(async () => {
  // Why a converter that refuses every document: a PDF export must get past the access check
  // (422, not 404) without this database test starting LibreOffice.
  app = await startTestApp({}, { pdf: new DocxPdfConverter({ maxDocxBytes: 1 }) });
  admin = await createActor(app, { role: 'admin' });
  await buildWorkspace();
  const none = await createActor(app, { role: 'external', clientIds: [ids.client!] });
  const project = await createActor(app, { role: 'external', clientIds: [ids.client!] });
  const report = await createActor(app, { role: 'external', clientIds: [ids.client!] });
  await share(project, 'projects', ids.p1!, 'view');
  await share(report, 'reports', ids.r1!, 'edit');
  await share(report, 'reports', ids.r4!, 'edit');
  expect((await admin.api.delete(`/reports/${ids.r4}`)).status).toBe(204);
  externals.push(
    { name: 'without shares', actor: none, shares: { projects: new Set(), reports: new Set() } },
    { name: 'with the project', actor: project, shares: { projects: new Set([ids.p1!]), reports: new Set() } },
    { name: 'with the report', actor: report, shares: { projects: new Set(), reports: new Set([ids.r1!, ids.r4!]) } },
  );
  doc = (await httpClient(app.url).get('/api/rest-docs/openapi')).body;
  for (const resource of listedResources()) {
    const res = await admin.api.get(`/${resource}?per_page=100`);
    expect(res.status, resource).toBe(200);
    rows[resource] = res.body;
  }
}, 180_000);
afterAll(async () => {
  await app?.stop();
});

/** The REST GET routes of the published document. */
function getRoutes(): string[] {
  return Object.keys(doc.paths)
    .filter((path) => path.startsWith('/rest/v1/') && doc.paths[path]!.get)
    .map((path) => path.slice('/rest/v1'.length));
}

/** Resources with a list of their own (`/reports`, not `/reports/{id}/retests`). */
function listedResources(): string[] {
  return getRoutes()
    .filter((path) => !path.includes('{'))
    .map((path) => path.slice(1));
}

/** The rule, from the rows an administrator sees: whether `shares` show `row` of `resource`. */
function sees(shares: Shares, self: string, resource: string, row: Row): boolean {
  const byId = (list: string, id: unknown) => rows[list]?.find((r) => r.id === id);
  const report = (id: unknown): boolean => {
    const r = byId('reports', id);
    return r !== undefined && (shares.projects.has(r.projectId as string) || shares.reports.has(r.id));
  };
  const finding = (id: unknown): boolean => {
    const f = byId('findings', id);
    if (!f) return false;
    // reportIds lists only reports not in the trash: a share of a trashed report shows nothing.
    return shares.projects.has(f.projectId as string) || (f.reportIds as string[]).some((r) => shares.reports.has(r));
  };
  switch (resource) {
    case 'projects':
      return shares.projects.has(row.id);
    case 'reports':
      return report(row.id);
    case 'findings':
      return finding(row.id);
    case 'report-tabs':
    case 'report-links':
    case 'report-findings':
    case 'retest-results':
      return report(row.reportId);
    case 'evidence-images':
      if (row.findingId) return finding(row.findingId);
      if (row.reportTabId) return report(byId('report-tabs', row.reportTabId)?.reportId);
      return report(byId('retest-results', row.retestResultId)?.reportId);
    case 'users':
      return row.id === self;
    default:
      // Clients, the libraries, the trash: the workspace's, never shown.
      return false;
  }
}

describe('the sharing rule on every list and get route', () => {
  it('puts rows of every resource in the walk, the shared and the hidden', () => {
    for (const resource of ['projects', 'retest-results']) expect(rows[resource]!.length, resource).toBe(2);
    for (const resource of ['reports', 'findings', 'report-tabs', 'report-links', 'report-findings'])
      expect(rows[resource]!.length, resource).toBeGreaterThanOrEqual(3);
    expect(rows['evidence-images']!.length).toBe(7);
    expect(rows.reports!.map((r) => r.id)).not.toContain(ids.r4);
    expect(getRoutes().length).toBeGreaterThan(40);
  });

  it.each(['without shares', 'with the project', 'with the report'])(
    'an external collaborator %s gets every list with exactly the rows the rule shows',
    async (name) => {
      const { actor, shares } = externals.find((e) => e.name === name)!;
      for (const resource of listedResources()) {
        const res = await actor.api.get(`/${resource}?per_page=100`);
        const expected = (rows[resource] ?? []).filter((row) => sees(shares, actor.user.id, resource, row));
        // A list the caller may not see at all answers 404 (the library), the others 200.
        const listed: Row[] = res.status === 404 ? [] : res.body;
        expect(res.status === 404 || res.status === 200, `${resource}: ${res.status}`).toBe(true);
        expect(listed.map((r) => r.id).sort(), resource).toEqual(expected.map((r) => r.id).sort());
      }
      // The findings of one report, for each report (the trashed one too).
      for (const report of [ids.r1, ids.r2, ids.r3, ids.r4]) {
        const res = await actor.api.get(`/findings?report_id=${report}&per_page=100`);
        const all: Row[] = (await admin.api.get(`/findings?report_id=${report}&per_page=100`)).body;
        const expected = all.filter((f) => sees(shares, actor.user.id, 'findings', f));
        expect(res.status).toBe(200);
        expect(res.body.map((r: Row) => r.id).sort(), report).toEqual(expected.map((r) => r.id).sort());
      }
    },
    budgetMs(40, 1_000),
  );

  it.each(['without shares', 'with the project', 'with the report'])(
    'an external collaborator %s gets 404 from every get route exactly where the rule hides the row',
    async (name) => {
      const { actor, shares } = externals.find((e) => e.name === name)!;
      const wrong: string[] = [];
      for (const route of getRoutes().filter((path) => path.includes('{id}'))) {
        const resource = route.split('/')[1]!;
        const all = rows[resource] ?? [];
        for (const row of SHAREABLE.has(resource) ? all : all.slice(0, WORKSPACE_ROWS)) {
          const visible = sees(shares, actor.user.id, resource, row);
          const res = await actor.api.get(route.replace('{id}', row.id));
          if ((res.status === 404) === visible)
            wrong.push(`GET ${route} ${row.id} (${visible ? 'shown' : 'hidden'}) -> ${res.status}`);
          if (visible && route === `/${resource}/{id}`) expect(res.body.id).toBe(row.id);
        }
      }
      expect(wrong).toEqual([]);
    },
    budgetMs(200, 500),
  );
});
