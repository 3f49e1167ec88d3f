// The import and export services on their own: called with a tenant database and a principal,
// no HTTP in between (the routes over them are tested in scan-import, report-exports and
// round-trip).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { DocxPdfConverter } from '@service/docx';
import { HttpError } from '@service/http';
import { readBuildInfo } from '../src/build-info.ts';
import type { RestPrincipal } from '../src/rest/rest-pipeline.ts';
import { createWorkspaceRepositories } from '../src/resources/workspace-repositories.ts';
import { createWorkspaceServices, type WorkspaceServices } from '../src/resources/workspace-services.ts';
import { readScanFile, readScanFindings } from '../src/resources/scan-import/scan-import-service.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const REPO = path.resolve(import.meta.dirname, '../../..');
const NMAP = readFileSync(path.join(REPO, 'fixtures/public/nmap/pablosnt-rekono-nmap-smb-analysis.xml'));

let app: TestApp;
let db: Knex;
let services: WorkspaceServices;
let principal: RestPrincipal;
let projectId: string;

async function newReport(title: string): Promise<string> {
  const [report] = await db('reports')
    .insert({ project_id: projectId, title, created_by: principal.userId })
    .returning('id');
  return report.id;
}

/** The error a call fails with, as an HttpError. */
async function failure(call: () => unknown): Promise<HttpError> {
  try {
    await call();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    return err as HttpError;
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  app = await startTestApp();
  db = app.dbs.tenant;
  const repositories = createWorkspaceRepositories({ files: app.files, evidenceMaxBytes: 1_000_000 });
  services = createWorkspaceServices(repositories, { pdf: new DocxPdfConverter(), build: readBuildInfo('unknown') });
  const userId = randomUUID();
  const [client] = await db('clients').insert({ name: 'Service Corp', created_by: userId }).returning('id');
  const [project] = await db('projects')
    .insert({ client_id: client.id, name: 'Services', created_by: userId })
    .returning('id');
  projectId = project.id;
  principal = {
    keyId: randomUUID(),
    userId,
    organizationId: randomUUID(),
    role: 'admin',
    scope: 'read-write',
    allowedClientIds: [client.id],
    plan: 'enterprise',
    tenantDatabase: 'tenant',
    tenant: db,
  };
});
afterAll(async () => {
  await app?.stop();
});

describe('ScanImportService', () => {
  it('reads a scanner file by its content, and refuses what is no scan with where it failed', async () => {
    const scan = readScanFile(NMAP);
    expect(scan.format).toBe('nmap');
    expect(scan.findings.length).toBeGreaterThan(0);
    expect(scan.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect((await failure(() => readScanFile(Buffer.from('hello')))).code).toBe('invalid_scan_file');
    const broken = await failure(() => readScanFile(NMAP.subarray(0, 2_000), 'nmap'));
    expect(broken.code).toBe('invalid_scan_file');
    expect(JSON.stringify(broken.details)).toMatch(/nmap at line \d+/);
  });

  it('creates findings once and merges them on a second import, in the caller transaction', async () => {
    const reportId = await newReport('scan service');
    const scan = readScanFile(NMAP);
    const first = await db.transaction((trx) =>
      services.scanImport.importInto(trx, principal, reportId, scan, { minSeverity: 'info' }),
    );
    // Every scanner finding is accounted for: created, or merged into a finding of the same template.
    expect(first.findings).toHaveLength(scan.findings.length);
    expect(first.created + first.merged).toBe(scan.findings.length);
    expect(first.created).toBeGreaterThan(0);
    expect(first.findings.every((f) => f.id)).toBe(true);
    const again = await db.transaction((trx) =>
      services.scanImport.importInto(trx, principal, reportId, scan, { minSeverity: 'info' }),
    );
    expect(again).toMatchObject({ created: 0, merged: scan.findings.length });
    // Nothing is written when the transaction fails.
    const other = await newReport('rolled back');
    await expect(
      db.transaction(async (trx) => {
        await services.scanImport.importInto(trx, principal, other, scan, { minSeverity: 'info' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const left = await db('report_findings').where({ report_id: other }).count('* as n').first();
    expect(Number(left?.n)).toBe(0);
  });

  it('skips findings below the minimum severity and answers 404 for a report the caller cannot see', async () => {
    const reportId = await newReport('min severity');
    const scan = readScanFindings([
      { source: { scanner: 'nessus' }, ruleId: '1', title: 'Low', severity: 'low' },
      { source: { scanner: 'nessus' }, ruleId: '2', title: 'High', severity: 'high' },
    ]);
    const result = await db.transaction((trx) =>
      services.scanImport.importInto(trx, principal, reportId, scan, { minSeverity: 'medium' }),
    );
    expect(result).toMatchObject({ created: 1, skipped: 1 });
    const outsider = { ...principal, role: 'external' as const };
    expect((await failure(() => services.scanImport.assertCanImport(db, outsider, reportId))).status).toBe(404);
  });
});

describe('ReportExportService and MarkdownImportService', () => {
  it('exports a report as Markdown, CSV and DOCX, and the Markdown comes back as the same report', async () => {
    const reportId = await newReport('Export service');
    await db.transaction((trx) =>
      services.scanImport.importInto(trx, principal, reportId, readScanFile(NMAP), { minSeverity: 'info' }),
    );
    const markdownPlan = await services.reportExports.markdown(db, principal, reportId);
    expect(markdownPlan.title).toBe('Export service');
    const markdown = await markdownPlan.render();
    const csv = await text(await (await services.reportExports.csv(db, principal, reportId)).render());
    expect(csv.split('\r\n')[0]).toContain('Title,Severity,Status');
    const docx = await (await services.reportExports.docx(db, principal, reportId)).render();
    expect(Buffer.from(docx.subarray(0, 2)).toString()).toBe('PK');

    const parsed = await services.markdownImport.read(markdown);
    expect(await services.markdownImport.targetProject(principal, undefined, parsed.document)).toBe(projectId);
    const created = await db.transaction((trx) => services.markdownImport.create(trx, principal, projectId, parsed));
    expect(created.findings).toBe(parsed.document.findings.length);
    expect(await (await services.reportExports.markdown(db, principal, created.reportId)).render()).toBe(markdown);
    expect(await services.markdownImport.stillVisible(principal, created.reportId)).toBe(true);
  });

  it('refuses a file that is not in the format, naming line and column', async () => {
    const err = await failure(() => services.markdownImport.read('# Not a report\n'));
    expect(err.code).toBe('invalid_markdown');
    expect(JSON.stringify(err.details)).toMatch(/line 1, column 1/);
    const unknown = await failure(() =>
      services.markdownImport.targetProject(principal, randomUUID(), {
        project: { name: 'x' },
        client: { name: 'y' },
      } as never),
    );
    expect(unknown.code).toBe('invalid_reference');
  });
});
