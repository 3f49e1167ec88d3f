import { createServer, type Server } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKnex } from '@service/db';
import { waitUntil } from '@service/db/testing';
import { httpClient } from './support/http-client.ts';
import { createActor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;

// The test apps' health checks wait long (start-test-app): on a busy test machine a healthy check
// can take over the service's default 1.5 s; these tests are about what the answer says.
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${app.databases.serverUrl}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function tenantName(): string {
  return decodeURIComponent(new URL(app.databases.urls.tenant).pathname.slice(1));
}

describe('GET /api/health', () => {
  it('answers ok with the version when all three databases answer', async () => {
    const res = await httpClient(app.url).get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      checks: { controlPlane: 'ok', shared: 'ok', tenant: 'ok' },
    });
  });

  it(
    'turns 503 naming the database that went away, REST requests needing it answer ' + '503, and it recovers by itself',
    async () => {
      const actor = await createActor(app, { role: 'member' });
      const name = tenantName();
      await admin(`alter database "${name}" allow_connections false`);
      await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`);
      await waitUntil('no connection to the tenant database is left', async () => {
        const client = new pg.Client({ connectionString: `${app.databases.serverUrl}/postgres` });
        await client.connect();
        try {
          const { rows } = await client.query('select count(*)::int as n from pg_stat_activity where datname = $1', [
            name,
          ]);
          return rows[0].n === 0;
        } finally {
          await client.end();
        }
      });
      try {
        const res = await httpClient(app.url).get('/api/health');
        expect(res.status).toBe(503);
        const body = res.body;
        expect(body.status).toBe('degraded');
        expect(body.checks.controlPlane).toBe('ok');
        expect(body.checks.shared).toBe('ok');
        expect(body.checks.tenant).toBe('database is not accepting connections');
        expect(JSON.stringify(body)).not.toMatch(/postgres:|password|127\.0\.0\.1/);
        const rest = await actor.api.get('/clients');
        expect(rest.status).toBe(503);
        expect(rest.body.error.code).toBe('unavailable');
      } finally {
        await admin(`alter database "${name}" allow_connections true`);
      }
      const back = await httpClient(app.url).get('/api/health');
      expect(back.status).toBe(200);
      expect(back.body.checks.tenant).toBe('ok');
      expect((await actor.api.get('/clients')).status).toBe(200);
    },
  );

  it('answers degraded, saying the check timed out, when a database hangs', async () => {
    // Why an app of its own: its checks give up after a second, not the long timeout above.
    const app = await startTestApp({ HEALTH_TIMEOUT_MS: '1000' });
    // A "database" that accepts TCP connections and never answers.
    const sockets: import('node:net').Socket[] = [];
    const hung: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    const port = (hung.address() as { port: number }).port;
    const original = app.dbs.shared;
    app.dbs.shared = createKnex(`postgres://u:p@127.0.0.1:${port}/x`, 2);
    try {
      const res = await httpClient(app.url).get('/api/health');
      expect(res.status).toBe(503);
      const body = res.body;
      expect(body.checks.shared).toMatch(/timed out/);
      expect(body.checks.tenant).toBe('ok');
    } finally {
      const stuck = app.dbs.shared;
      app.dbs.shared = original;
      for (const s of sockets) s.destroy();
      hung.close();
      await stuck.destroy().catch(() => {});
      await app.stop();
    }
  });
});

describe('GET /api/version', () => {
  it('gives version and edition only to anonymous callers', async () => {
    const res = await httpClient(app.url).get('/api/version');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), edition: 'self-hosted' });
  });
});
