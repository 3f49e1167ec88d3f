// Every field of the report model's finding declaration travels every path a finding takes:
// create and GET, PATCH, scan import through a template, Markdown export and import, CSV, and
// the tenant database's columns. A field added to the declaration is walked here by itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FINDING_CONTENT_FIELD_NAMES,
  FINDING_FIELD_NAMES,
  FINDING_FIELDS,
  type FindingFieldName,
} from '@service/report-model';
import { sampleFieldValue, sampleFinding } from '@service/report-model/testing';
import { CSV_COLUMNS_OF_FIELD } from '@service/report-csv';
import { parseCsv } from '@service/report-csv/testing';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let actor: Actor;
let projectId: string;

beforeAll(async () => {
  app = await startTestApp();
  actor = await createActor(app, { role: 'admin' });
  const clientId = (await actor.api.post('/clients', { name: 'Field Walk Ltd' })).body.id;
  await actor.allow(clientId);
  projectId = (await actor.api.post('/projects', { clientId, name: 'Every field' })).body.id;
});
afterAll(async () => {
  await app?.stop();
});

const apiValueOf = (finding: Record<string, unknown>, name: FindingFieldName) => finding[name];

async function newReport(title: string): Promise<string> {
  return (await actor.api.post('/reports', { projectId, title })).body.id;
}

describe('every finding field', () => {
  it('has its column in the migrated tenant database, and template content is in the content hash', async () => {
    const tenant = app.dbs.tenant;
    const columnsOf = async (table: string) =>
      new Set(
        (
          await tenant('information_schema.columns')
            .where({ table_schema: 'public', table_name: table })
            .select('column_name')
        ).map((r: { column_name: string }) => r.column_name),
      );
    const findings = await columnsOf('findings');
    const templates = await columnsOf('finding_templates');
    for (const name of FINDING_FIELD_NAMES) expect(findings, name).toContain(FINDING_FIELDS[name].column);
    for (const name of FINDING_CONTENT_FIELD_NAMES) expect(templates, name).toContain(FINDING_FIELDS[name].column);
    // Why: a content column the hash does not read would never mark a template "edited since import".
    const { rows } = await tenant.raw(
      `select pg_get_expr(d.adbin, d.adrelid) as expression from pg_attrdef d
         join pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
        where d.adrelid = 'finding_templates'::regclass and a.attname = 'content_hash'`,
    );
    for (const name of FINDING_CONTENT_FIELD_NAMES)
      expect(rows[0].expression, name).toMatch(new RegExp(`\\b"?${FINDING_FIELDS[name].column}"?\\b`));
  });

  it('is stored on create and read back by GET, and changed by PATCH', async () => {
    const created = await actor.api.post('/findings', { projectId, ...sampleFinding(1) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const read = (await actor.api.get(`/findings/${created.body.id}`)).body;
    for (const name of FINDING_FIELD_NAMES) expect(apiValueOf(read, name), name).toEqual(sampleFieldValue(name, 1));

    let updatedAt = read.updatedAt;
    for (const name of FINDING_FIELD_NAMES) {
      const patched = await actor.api.patch(`/findings/${read.id}`, {
        [name]: sampleFieldValue(name, 2),
        expectedUpdatedAt: updatedAt,
      });
      if (FINDING_FIELDS[name].immutable) {
        expect(patched.status, name).toBe(400);
        continue;
      }
      expect(patched.status, `${name}: ${JSON.stringify(patched.body)}`).toBe(200);
      expect(apiValueOf(patched.body, name), name).toEqual(sampleFieldValue(name, 2));
      updatedAt = patched.body.updatedAt;
    }
  });

  it("is taken from a library template's content by a scan import of JSON findings", async () => {
    const content = Object.fromEntries(FINDING_CONTENT_FIELD_NAMES.map((n) => [n, sampleFieldValue(n, 1)]));
    const template = await actor.api.post('/finding-library', { ...content, scannerRules: ['nessus:990001'] });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const reportId = await newReport('Scan import walk');
    const imported = await actor.api.post(`/reports/${reportId}/import-scan`, {
      findings: [
        {
          source: { scanner: 'nessus', version: '10.8.3' },
          ruleId: '990001',
          title: 'The scanner title',
          severity: content.severity,
          occurrences: [{ asset: { id: '10.0.0.9' }, port: 443, protocol: 'tcp' }],
        },
      ],
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.findings[0].template.id).toBe(template.body.id);
    const finding = (await actor.api.get(`/findings/${imported.body.findings[0].id}`)).body;
    for (const name of FINDING_CONTENT_FIELD_NAMES) expect(apiValueOf(finding, name), name).toEqual(content[name]);
    expect(finding.source).toEqual({
      kind: 'scanner',
      scanner: 'nessus',
      scannerVersion: '10.8.3',
      ruleId: '990001',
      templateId: template.body.id,
    });
    expect(finding.affectedAssets).toEqual([{ host: '10.0.0.9', port: 443, protocol: 'tcp' }]);
  });

  it('survives a Markdown export and import, and has its own CSV columns', async () => {
    const reportId = await newReport('Markdown walk');
    const created = await actor.api.post('/findings', { reportId, ...sampleFinding(1) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const markdown = await fetch(`${app.url}/rest/v1/reports/${reportId}/export-markdown`, {
      headers: { authorization: `Bearer ${actor.key}` },
    }).then((r) => r.text());
    const imported = await actor.api.post('/reports/import-markdown', { markdown, projectId });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const [copy] = (await actor.api.get(`/findings?report_id=${imported.body.reportId}`)).body;
    for (const name of FINDING_FIELD_NAMES) expect(apiValueOf(copy, name), name).toEqual(sampleFieldValue(name, 1));

    const csv = await fetch(`${app.url}/rest/v1/reports/${reportId}/export-csv`, {
      headers: { authorization: `Bearer ${actor.key}` },
    }).then((r) => r.text());
    const [header, row] = parseCsv(csv.replace(/^\uFEFF/, ''));
    for (const name of FINDING_FIELD_NAMES) {
      const columns = CSV_COLUMNS_OF_FIELD[name];
      expect(columns.length, name).toBeGreaterThan(0);
      for (const column of columns) {
        const at = header!.indexOf(column);
        expect(at, `${name}: column ${column}`).toBeGreaterThanOrEqual(0);
        expect(row![at], `${name}: cell of ${column}`).not.toBe('');
      }
    }
  });
});
