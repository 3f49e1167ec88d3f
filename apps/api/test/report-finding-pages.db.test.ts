// Pages of a report's findings: in the report's order (position; finding id besides) from its index,
// with an exact X-Total-Count kept in report_finding_counts, the same answers as the general path
// for every caller, and the statistics refreshed after a bulk import.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  emptyDocumentFinding,
  emptyReportDocument,
  type ReportDocument,
  type ReportDocumentFinding,
} from '@service/report-model';
import { readBuildInfo } from '../src/build-info.ts';
import type { RestPrincipal } from '../src/rest/rest-pipeline.ts';
import { createWorkspaceRepositories } from '../src/resources/workspace-repositories.ts';
import { DocxPdfConverter } from '@service/docx';
import { createWorkspaceServices } from '../src/resources/workspace-services.ts';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let admin: Actor;
let clientId: string;
let projectId: string;

beforeAll(async () => {
  app = await startTestApp();
  admin = await createActor(app, { role: 'admin' });
  const client = await admin.api.post('/clients', { name: 'Pages Corp' });
  clientId = client.body.id;
  await admin.allow(clientId);
  const project = await admin.api.post('/projects', { clientId, name: 'Pages' });
  projectId = project.body.id;
});
afterAll(async () => {
  await app?.stop();
});

async function newReport(title: string, findings: number): Promise<{ id: string; findingIds: string[] }> {
  // Why manual: these tests are about paging; a report in severity order would interleave them.
  const report = await admin.api.post('/reports', { projectId, title, findingOrder: 'manual' });
  const findingIds: string[] = [];
  for (let i = 0; i < findings; i++) {
    const f = await admin.api.post('/findings', {
      reportId: report.body.id,
      title: `${title} finding ${i}`,
      severity: i % 2 ? 'high' : 'low',
    });
    findingIds.push(f.body.id);
  }
  return { id: report.body.id, findingIds };
}

/** Every page of the report's findings as `actor` sees them, and the totals the pages state. */
async function allPages(actor: Actor, reportId: string, perPage: number, extra = '') {
  const ids: string[] = [];
  const totals = new Set<string>();
  for (let page = 1; ; page++) {
    const res = await actor.api.get(`/findings?report_id=${reportId}&per_page=${perPage}&page=${page}${extra}`);
    expect(res.status).toBe(200);
    totals.add(res.headers.get('x-total-count')!);
    ids.push(...res.body.map((f: { id: string }) => f.id));
    if (res.body.length < perPage) break;
  }
  return { ids, totals: [...totals] };
}

describe("a report's findings", () => {
  it("are listed in the report's order, by position, with an exact total", async () => {
    const report = await newReport('Order', 7);
    const attachments = await admin.api.get(`/report-findings?report_id=${report.id}&per_page=100`);
    const byFinding = new Map(
      attachments.body.map((a: { id: string; findingId: string }) => [a.findingId, a.id] as [string, string]),
    );
    // Each finding in turn moved to a position: it leaves its place and the findings between move
    // one place towards it, so positions stay 0..6 (the last move past the end puts it last).
    const positions = [5, 0, 5, 1, 3, 3, 9];
    const expected = [...report.findingIds];
    for (const [i, id] of report.findingIds.entries()) {
      const res = await admin.api.patch(`/report-findings/${byFinding.get(id)}`, { position: positions[i] });
      expect(res.status).toBe(200);
      expect(res.body.position).toBe(Math.min(positions[i]!, 6));
      expected.splice(expected.indexOf(id), 1);
      expected.splice(positions[i]!, 0, id);
    }
    for (const perPage of [1, 3, 7, 100]) {
      expect(await allPages(admin, report.id, perPage)).toEqual({ ids: expected, totals: ['7'] });
    }
    // With another filter the general path answers, in the same order.
    const high = await allPages(admin, report.id, 2, '&severity=high');
    expect(high.ids).toEqual(expected.filter((id) => report.findingIds.indexOf(id) % 2 === 1));
    expect(high.totals).toEqual(['3']);
    const past = await admin.api.get(`/findings?report_id=${report.id}&per_page=5&page=3`);
    expect(past.body).toEqual([]);
    expect(past.headers.get('x-total-count')).toBe('7');
  });

  it('keep the total exact through attaching, detaching and deleting', async () => {
    const report = await newReport('Counts', 3);
    const other = await newReport('Other', 1);
    const total = async (id: string) =>
      (await admin.api.get(`/findings?report_id=${id}&per_page=1`)).headers.get('x-total-count');
    expect(await total(report.id)).toBe('3');
    const attach = await admin.api.post('/report-findings', { reportId: report.id, findingId: other.findingIds[0] });
    expect(attach.status).toBe(201);
    expect(await total(report.id)).toBe('4');
    expect((await admin.api.delete(`/report-findings/${attach.body.id}`)).status).toBe(204);
    expect(await total(report.id)).toBe('3');
    expect((await admin.api.delete(`/findings/${report.findingIds[0]}`)).status).toBe(204);
    expect(await total(report.id)).toBe('2');
    expect(await total(other.id)).toBe('1');
    const counts = await app.dbs.tenant('report_finding_counts').whereIn('report_id', [report.id, other.id]);
    expect(Object.fromEntries(counts.map((c) => [c.report_id, c.findings]))).toEqual({ [report.id]: 2, [other.id]: 1 });
  });

  it('answer every caller as the general path does', async () => {
    const a = await newReport('Shared A', 3);
    const b = await newReport('Shared B', 1);
    // The first finding of A also sits in B.
    await admin.api.post('/report-findings', { reportId: b.id, findingId: a.findingIds[0] });
    const viaReport = await createActor(app, { role: 'external' });
    const viaOther = await createActor(app, { role: 'external' });
    const stranger = await createActor(app, { role: 'external' });
    await admin.api.post(`/reports/${a.id}/shares`, { userId: viaReport.user.id, access: 'view' });
    await admin.api.post(`/reports/${b.id}/shares`, { userId: viaOther.user.id, access: 'view' });
    expect(await allPages(viaReport, a.id, 2)).toEqual({ ids: a.findingIds, totals: ['3'] });
    // Shared through another report: only the finding they can see, and a total that says so.
    expect(await allPages(viaOther, a.id, 2)).toEqual({ ids: [a.findingIds[0]], totals: ['1'] });
    expect(await allPages(stranger, a.id, 2)).toEqual({ ids: [], totals: ['0'] });
    const viewer = await createActor(app, { role: 'viewer' });
    expect(await allPages(viewer, a.id, 2)).toEqual({ ids: a.findingIds, totals: ['3'] });
    expect(await allPages(admin, randomUUID(), 2)).toEqual({ ids: [], totals: ['0'] });
  });

  it('disappear with their project in the trash', async () => {
    const project = await admin.api.post('/projects', { clientId, name: 'Trashed' });
    const report = await admin.api.post('/reports', { projectId: project.body.id, title: 'In the trash' });
    await admin.api.post('/findings', { reportId: report.body.id, title: 'Gone', severity: 'low' });
    expect((await admin.api.delete(`/projects/${project.body.id}`)).status).toBe(204);
    expect(await allPages(admin, report.body.id, 10)).toEqual({ ids: [], totals: ['0'] });
  });

  it('never move to another report (the counts follow inserts and deletes only)', async () => {
    const a = await newReport('Fixed A', 1);
    const b = await newReport('Fixed B', 0);
    await expect(
      app.dbs.tenant('report_findings').where({ report_id: a.id }).update({ report_id: b.id }),
    ).rejects.toThrow(/cannot move to another report/);
  });
});

describe('a bulk import', () => {
  it('leaves fresh statistics and a vacuumed order index behind', async () => {
    const db = app.dbs.tenant;
    const repositories = createWorkspaceRepositories({ files: app.files, evidenceMaxBytes: 1_000_000 });
    const services = createWorkspaceServices(repositories, {
      pdf: new DocxPdfConverter(),
      build: readBuildInfo('unknown'),
    });
    const principal: RestPrincipal = {
      keyId: randomUUID(),
      userId: admin.user.id,
      organizationId: admin.user.organizationId,
      role: 'admin',
      scope: 'read-write',
      allowedClientIds: [clientId],
      plan: 'business',
      tenantDatabase: 'default',
      tenant: db,
    };
    const findings: ReportDocumentFinding[] = Array.from({ length: 1_200 }, (_, i) =>
      emptyDocumentFinding(`Imported ${i}`, 'medium'),
    );
    const document: ReportDocument = {
      ...emptyReportDocument('Bulk', 'Pages Corp', 'Pages'),
      findingOrder: 'manual',
      findings,
    };
    const stats = async () =>
      Object.fromEntries(
        (
          await db('pg_stat_user_tables')
            .whereIn('relname', ['findings', 'report_findings'])
            .select('relname', 'analyze_count', 'vacuum_count')
        ).map((r) => [r.relname, { analyze: Number(r.analyze_count), vacuum: Number(r.vacuum_count) }]),
      );
    const before = await stats();
    const created = await db.transaction((trx) =>
      services.markdownImport.create(trx, principal, projectId, { document, warnings: [] }),
    );
    await repositories.statistics.idle(db);
    const after = await stats();
    expect(after.findings!.analyze).toBeGreaterThan(before.findings!.analyze);
    expect(after.report_findings!.vacuum).toBeGreaterThan(before.report_findings!.vacuum);
    const res = await admin.api.get(`/findings?report_id=${created.reportId}&per_page=100&page=12`);
    expect(res.body.map((f: { title: string }) => f.title)).toEqual(
      Array.from({ length: 100 }, (_, i) => `Imported ${1_100 + i}`),
    );
    expect(res.headers.get('x-total-count')).toBe('1200');
  });
});
