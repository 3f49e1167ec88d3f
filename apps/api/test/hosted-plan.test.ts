import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCost } from '../src/rest/rest-pipeline.ts';
import { createActor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ SERVICE_EDITION: 'hosted' }, { evaluation: false });
});
afterAll(async () => {
  await app?.stop();
});

describe('hosted edition', () => {
  it('needs the Business plan or above for the REST API', async () => {
    const actor = await createActor(app);
    expect(app.license).toBeNull();
    for (const [plan, status] of [
      ['free', 403],
      ['team', 403],
      ['business', 200],
      ['enterprise', 200],
    ] as const) {
      await app.dbs.controlPlane('organizations').update({ plan });
      const res = await actor.api.get('/clients');
      expect(res.status, plan).toBe(status);
      if (status === 403) expect(res.body.error.code).toBe('api_not_licensed');
    }
  });

  it('reports the hosted edition', async () => {
    expect((await fetch(`${app.url}/api/version`).then((r) => r.json())) as { edition: string }).toMatchObject({
      edition: 'hosted',
    });
  });
});

describe('rate-limit cost', () => {
  it('counts a DOCX export and a Markdown import as 10 requests, everything else as 1', () => {
    const cost = (method: string, path: string) => requestCost({ method, path } as never);
    expect(cost('GET', '/rest/v1/reports/4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f/export-docx')).toBe(10);
    expect(cost('POST', '/rest/v1/reports/import-markdown')).toBe(10);
    expect(cost('GET', '/rest/v1/reports/4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f/export-markdown')).toBe(1);
    expect(cost('POST', '/rest/v1/findings')).toBe(1);
  });
});
