import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let member: Actor;
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp();
  const creator = await createActor(app, { role: 'member' });
  ids.client = (await creator.api.post('/clients', { name: 'Export Corp' })).body.id;
  member = await createActor(app, { role: 'member', clientIds: [ids.client] });
  ids.project = (await member.api.post('/projects', { clientId: ids.client, name: 'Exports', startDate: '2026-11-02', endDate: '2026-11-13' })).body.id;
  ids.report = (await member.api.post('/reports', { projectId: ids.project, title: 'Q4 test: "external"' })).body.id;
  await member.api.post('/findings', { reportId: ids.report, title: 'First', severity: 'critical', cves: ['CVE-2021-44228'], affectedAssets: [{ host: 'a.example', port: 443, protocol: 'tcp' }] });
  await member.api.post('/findings', { reportId: ids.report, title: '=cmd|" /C calc"!A0', severity: 'low', description: '@SUM(1+1)' });
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /reports/{id}/export-csv', () => {
  it('streams one row per finding with a header, as an attachment', async () => {
    const res = await fetch(`${app.url}/rest/v1/reports/${ids.report}/export-csv`, { headers: { authorization: `Bearer ${member.key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="Q4 test external.csv"; filename\*=UTF-8''/);
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
