// Issue 27 items 1 and 7: work with a statement time limit of its own (bulk imports and retests,
// searches) answers a statement that runs past it with 503 `statement_timeout`, naming the limit,
// its setting and the size of the work, and writes nothing; never 503 `unavailable`. The app runs
// with a bulk limit of 1 ms, which no insert of findings can meet, so the outcome does not depend
// on the machine's speed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatementTimeoutError } from '@service/http';
import { bulkStep, readWithinBulkLimit, withinBulkLimit } from '../src/resources/bulk-work.ts';
import { searchWithinLimit } from '../src/resources/search-terms.ts';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const FINDINGS = 2_000;

let app: TestApp;
let actor: Actor;
let projectId: string;
let reportId: string;

beforeAll(async () => {
  app = await startTestApp({ BULK_STATEMENT_TIMEOUT_MS: '1' });
  actor = await createActor(app, { role: 'member' });
  const clientId = (await actor.api.post('/clients', { name: 'Limits Ltd' })).body.id;
  await actor.allow(clientId);
  projectId = (await actor.api.post('/projects', { clientId, name: 'Limits' })).body.id;
  reportId = (await actor.api.post('/reports', { projectId, title: 'Scan target' })).body.id;
});
afterAll(async () => {
  await app?.stop();
});

const failuresLogged = () => app.logLines.filter((l) => l.includes('"event":"request_failed"'));
const timeoutsLogged = () => app.logLines.filter((l) => l.includes('"event":"statement_timeout"'));

function reportMarkdown(findings: number): string {
  const head =
    '---\nformat: service-report/1\ntitle: Big\nclient: Limits Ltd\nproject:\n  name: Limits\n---\n\n# Findings\n\n';
  return (
    head +
    Array.from({ length: findings }, (_, i) => `## Finding ${i}\n\n\`\`\`yaml\nseverity: low\n\`\`\`\n\n`).join('')
  );
}

describe('a bulk statement past its time limit', () => {
  it('a Markdown import answers 503 statement_timeout naming the limit and the size, and creates nothing', async () => {
    const before = await app.dbs.tenant('reports').count({ n: '*' }).first();
    const res = await actor.api.post('/reports/import-markdown', { markdown: reportMarkdown(FINDINGS), projectId });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('statement_timeout');
    expect(res.body.error.message).toMatch(
      /^Importing a report of 2,000 findings ran past 1 ms, the time limit of one database statement of bulk work \(BULK_STATEMENT_TIMEOUT_MS\)/,
    );
    expect(res.body.error.message).toMatch(/nothing was written/);
    expect(res.body.error.message).not.toMatch(/unavailable/);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await app.dbs.tenant('reports').count({ n: '*' }).first()).toEqual(before);
  });

  it('a scan import answers the same, naming the number of results', async () => {
    const findings = Array.from({ length: FINDINGS }, (_, i) => ({
      source: { scanner: 'nessus' },
      ruleId: String(900_000 + i),
      title: `Result ${i}`,
      severity: 'low',
    }));
    const res = await actor.api.post(`/reports/${reportId}/import-scan`, { findings });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('statement_timeout');
    expect(res.body.error.message).toMatch(/^Importing 2,000 scanner results ran past 1 ms/);
    expect((await actor.api.get(`/findings?report_id=${reportId}`)).body).toEqual([]);
  });

  it('names the step that ran too long', async () => {
    const attempt = app.dbs.tenant.transaction((trx) =>
      withinBulkLimit(trx, 50, 'Importing 3 things', () =>
        bulkStep('inserting things 1 to 3 of 3', () => trx.raw('select pg_sleep(5)')),
      ),
    );
    await expect(attempt).rejects.toThrow(StatementTimeoutError);
    await expect(attempt).rejects.toThrow(
      /^Importing 3 things ran past 50 ms, .*\(BULK_STATEMENT_TIMEOUT_MS\), while inserting things 1 to 3 of 3; nothing was written/,
    );
  });

  it('an export reads the report within the bulk limit, in a read-only transaction', async () => {
    const attempt = readWithinBulkLimit(app.dbs.tenant, 50, 'Reading the report to export', (trx) =>
      trx.raw('select pg_sleep(5)'),
    );
    await expect(attempt).rejects.toThrow(/^Reading the report to export ran past 50 ms, /);
    const writing = readWithinBulkLimit(app.dbs.tenant, 5_000, 'Reading', (trx) =>
      trx.raw("insert into clients (name) values ('Not written')"),
    );
    await expect(writing).rejects.toThrow(/read-only transaction/);
  });

  it('logs each as one warning naming the work, not as a failure of the service', () => {
    expect(failuresLogged()).toEqual([]);
    const warnings = timeoutsLogged();
    expect(warnings.length).toBe(2);
    expect(warnings.every((l) => l.includes('"level":"warn"') && !l.includes('insert into'))).toBe(true);
  });
});

describe('a search statement past its time limit', () => {
  it('answers statement_timeout naming SEARCH_STATEMENT_TIMEOUT_MS and the query', async () => {
    const attempt = searchWithinLimit(app.dbs.tenant, 50, 'CVE-2021 10.0.0.1', (trx) => trx.raw('select pg_sleep(5)'));
    await expect(attempt).rejects.toThrow(StatementTimeoutError);
    await expect(attempt).rejects.toThrow(
      /^The search ran past 50 ms, the time limit of a search statement \(SEARCH_STATEMENT_TIMEOUT_MS\), for q of 17 characters in 2 terms/,
    );
  });

  it('leaves the pool limit in place for the statements after it', async () => {
    await searchWithinLimit(app.dbs.tenant, 50, 'x', (trx) => trx.raw('select 1'));
    const { rows } = await app.dbs.tenant.raw('show statement_timeout');
    expect(rows[0].statement_timeout).not.toBe('50ms');
  });
});
