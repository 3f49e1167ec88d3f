import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
