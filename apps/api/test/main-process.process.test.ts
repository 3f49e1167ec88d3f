// The service as an operator runs it: `npm start` (apps/api/scripts/start.mjs: the bundled service,
// built into dist/service/<digest>/ when missing or stale) in its own process.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createKnex, DATABASE_NAMES, prepareDatabases } from '@service/db';
import { createTestDatabases, waitUntil } from '@service/db/testing';
import { PROCESS_START_MS, processBudgetMs } from '@service/test-lanes';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startService(env: Record<string, string>): Running {
  const child = spawn(process.execPath, ['apps/api/scripts/start.mjs'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function waitForListening(run: Running, timeoutMs = PROCESS_START_MS): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const m = /"event":"listening","port":(\d+)/.exec(run.output());
    if (m) return Number(m[1]);
    if (run.child.exitCode !== null) throw new Error(`service exited early: ${run.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service did not start: ${run.output()}`);
}

/** Waits until the service has logged `event` (the JSON log line's event), `times` times. */
async function waitForEvent(run: Running, event: string, timeoutMs = PROCESS_START_MS, times = 1): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (run.output().split(`"event":"${event}"`).length - 1 >= times) return;
    if (run.child.exitCode !== null) throw new Error(`service exited while waiting for ${event}: ${run.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${event} within ${timeoutMs} ms: ${run.output()}`);
}

/** The pid of the embedded PostgreSQL server, from its own lock file. */
function postmasterPid(dataDir: string): number {
  return Number.parseInt(readFileSync(path.join(dataDir, 'postgres/postmaster.pid'), 'utf8').split('\n')[0]!, 10);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A superuser connection to one of the embedded server's databases, as an operator would make it. */
async function embeddedClient(dataDir: string, database: string): Promise<pg.Client> {
  const port = readFileSync(path.join(dataDir, 'postgres.port'), 'utf8').trim();
  const password = readFileSync(path.join(dataDir, 'postgres-password'), 'utf8').trim();
  const client = new pg.Client({ host: '127.0.0.1', port: Number(port), user: 'postgres', password, database });
  // Why: the tests stop the server under this connection on purpose; its end is not a failure.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

const BOGUS_KEY = `service_sk_${'A'.repeat(43)}`;

/** Waits until a query of the service waits on a lock `holder` holds: the request is in flight. */
async function waitForBlockedQuery(holder: pg.Client): Promise<void> {
  await waitUntil('a request of the service waits on the held lock', async () => {
    const { rows } = await holder.query(
      `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
    );
    return rows[0].n > 0;
  });
}

/** True once nothing accepts connections on `port` any more. */
async function refusesConnections(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/api/version`).then(
    () => false,
    () => true,
  );
}

function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'service-main-'));
  dirs.push(d);
  return d;
}

describe('the service process', () => {
  it('imports Markdown through the bundled reader thread, answering 422 with line and column', async () => {
    const dataDir = tempDir();
    const run = startService({
      DATA_DIR: dataDir,
      PORT: '0',
      SERVICE_ADMIN_EMAIL: 'admin@example.com',
      SERVICE_ADMIN_PASSWORD: 'a-long-test-password',
    });
    const url = `http://127.0.0.1:${await waitForListening(run)}`;
    const json = { 'content-type': 'application/json', 'x-requested-with': 'test' };
    const login = await fetch(`${url}/api/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'admin@example.com', password: 'a-long-test-password' }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const created = await fetch(`${url}/api/profile/api-keys`, {
      method: 'POST',
      headers: { ...json, cookie },
      body: JSON.stringify({ name: 'test', scope: 'read-write' }),
    });
    const auth = {
      'content-type': 'application/json',
      authorization: `Bearer ${((await created.json()) as { key: string }).key}`,
    };
    const post = (p: string, body: unknown) =>
      fetch(`${url}/rest/v1${p}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    const client = (await (await post('/clients', { name: 'Process Corp' })).json()) as { id: string };
    const project = (await (await post('/projects', { clientId: client.id, name: 'Process' })).json()) as {
      id: string;
    };
    const file =
      '---\nformat: service-report/1\ntitle: T\nclient: C\nproject:\n  name: P\n---\n\n' +
      '# Findings\n\n## SQL injection\n\n```yaml\nseverity: high\n```\n';
    const good = await post('/reports/import-markdown', { markdown: file, projectId: project.id });
    expect(good.status).toBe(201);
    expect(await good.json()).toMatchObject({ findings: 1 });
    const form = new FormData();
    form.set('projectId', project.id);
    form.set('file', new Blob([file.replace('## SQL injection', '## Uploaded')], { type: 'text/markdown' }), 'r.md');
    const uploaded = await fetch(`${url}/rest/v1/reports/import-markdown`, {
      method: 'POST',
      headers: { authorization: auth.authorization },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const report = (await uploaded.json()) as { reportId: string };
    const findings = await fetch(`${url}/rest/v1/findings?report_id=${report.reportId}`, { headers: auth });
    expect(((await findings.json()) as Array<{ title: string }>).map((f) => f.title)).toEqual(['Uploaded']);
    const bad = await post('/reports/import-markdown', {
      markdown: file.replace('severity: high', 'severity: hgih'),
      projectId: project.id,
    });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({
      error: {
        code: 'invalid_markdown',
        details: [{ path: '/findings/0/severity', message: /^line 14, column 11: / }],
      },
    });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it(
    'starts on an embedded database, refuses a second process on the same data, and ' + 'stops cleanly on SIGTERM',
    async () => {
      const dataDir = tempDir();
      const first = startService({ DATA_DIR: dataDir, PORT: '0' });
      const port = await waitForListening(first);
      const health = await fetch(`http://127.0.0.1:${port}/api/health`);
      expect(health.status).toBe(200);

      const second = startService({ DATA_DIR: dataDir, PORT: '0' });
      expect(await second.exited).not.toBe(0);
      expect(second.output()).toMatch(
        /service: Another service process \(pid \d+\) is already using the data directory/,
      );

      // The first one is unharmed.
      expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);

      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      expect(first.output()).toContain('"event":"stopped"');

      // And the data directory starts again, with its data.
      const again = startService({ DATA_DIR: dataDir, PORT: '0' });
      const port2 = await waitForListening(again);
      expect((await fetch(`http://127.0.0.1:${port2}/api/health`)).status).toBe(200);
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    },
    processBudgetMs(3),
  );

  it('restarts the embedded PostgreSQL when it dies, and keeps serving', async () => {
    const dataDir = tempDir();
    const run = startService({ DATA_DIR: dataDir, PORT: '0' });
    const port = await waitForListening(run);
    const before = postmasterPid(dataDir);
    process.kill(before, 'SIGKILL');
    await waitForEvent(run, 'embedded_postgres_exited');
    await waitForEvent(run, 'embedded_postgres_restarted');
    let health = 0;
    for (let i = 0; i < 100 && health !== 200; i++) {
      health = (await fetch(`http://127.0.0.1:${port}/api/health`)).status;
      if (health !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(health).toBe(200);
    expect(postmasterPid(dataDir)).not.toBe(before);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(existsSync(path.join(dataDir, 'service.lock'))).toBe(false);
  });

  it('on SIGTERM lets in-flight requests finish before it stops the database', async () => {
    const dataDir = tempDir();
    const run = startService({ DATA_DIR: dataDir, PORT: '0' });
    const port = await waitForListening(run);
    // Hold the API keys table, so a REST request waits on the database in the middle of its work.
    const holder = await embeddedClient(dataDir, 'service_control_plane');
    await holder.query('begin');
    await holder.query('lock table api_keys in access exclusive mode');
    const inFlight = fetch(`http://127.0.0.1:${port}/rest/v1/clients`, {
      headers: { authorization: `Bearer ${BOGUS_KEY}` },
    });
    await waitForBlockedQuery(holder);
    run.child.kill('SIGTERM');
    await waitForEvent(run, 'shutting_down');
    // Shutdown has progressed as far as it can: no new connections are accepted.
    await waitUntil('the service stops accepting connections', () => refusesConnections(port));
    // Still running, database included: the request has not finished yet and still waits on it.
    expect(run.child.exitCode).toBeNull();
    await waitForBlockedQuery(holder);
    await holder.query('commit');
    await holder.end();
    const answer = await inFlight;
    expect(answer.status).toBe(401);
    expect(await run.exited).toBe(0);
    expect(run.output().indexOf('"event":"stopped"')).toBeGreaterThan(run.output().indexOf('"event":"shutting_down"'));
    expect(existsSync(path.join(dataDir, 'service.lock'))).toBe(false);
  });

  it('on SIGTERM gives up on requests after SHUTDOWN_TIMEOUT_MS, then stops', async () => {
    const dataDir = tempDir();
    const run = startService({
      DATA_DIR: dataDir,
      PORT: '0',
      SHUTDOWN_TIMEOUT_MS: '500',
      DB_STATEMENT_TIMEOUT_MS: '2000',
    });
    const port = await waitForListening(run);
    const holder = await embeddedClient(dataDir, 'service_control_plane');
    await holder.query('begin');
    await holder.query('lock table api_keys in access exclusive mode');
    const inFlight = fetch(`http://127.0.0.1:${port}/rest/v1/clients`, {
      headers: { authorization: `Bearer ${BOGUS_KEY}` },
    }).then(
      (r) => r.status,
      () => 'closed',
    );
    await waitForBlockedQuery(holder);
    run.child.kill('SIGTERM');
    expect(await inFlight).toBe('closed');
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('"event":"shutdown_timeout"');
    await holder.end().catch(() => undefined);
    expect(existsSync(path.join(dataDir, 'service.lock'))).toBe(false);
  });

  it('on SIGTERM after the database died, exits and leaves no lock behind', async () => {
    const dataDir = tempDir();
    const run = startService({ DATA_DIR: dataDir, PORT: '0' });
    await waitForListening(run);
    const pid = postmasterPid(dataDir);
    process.kill(pid, 'SIGKILL');
    await waitForEvent(run, 'embedded_postgres_exited');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(existsSync(path.join(dataDir, 'service.lock'))).toBe(false);
    // Nothing was left running on the data directory either.
    await waitUntil('no PostgreSQL server runs on the data directory', () => {
      const again = existsSync(path.join(dataDir, 'postgres/postmaster.pid')) ? postmasterPid(dataDir) : null;
      return again === null || !isAlive(again);
    });
  });

  it('refuses to start, with one clear line, on data recorded by a newer version', async () => {
    const databases = await createTestDatabases();
    const dbs = Object.fromEntries(DATABASE_NAMES.map((n) => [n, createKnex(databases.urls[n], 2)])) as Parameters<
      typeof prepareDatabases
    >[0];
    await prepareDatabases(dbs, '99.0.0');
    await Promise.all(DATABASE_NAMES.map((n) => dbs[n].destroy()));
    const run = startService({
      CONTROL_PLANE_DATABASE_URL: databases.urls.controlPlane,
      SHARED_DATABASE_URL: databases.urls.shared,
      TENANT_DATABASE_URL: databases.urls.tenant,
      PORT: '0',
    });
    expect(await run.exited).toBe(1);
    const lines = run.output().trim().split('\n');
    expect(lines[lines.length - 1]).toMatch(
      /^service: The database was last used by version 99\.0\.0, newer than this service \(\d+\.\d+\.\d+\); refusing to start/,
    );
    await databases.drop();
  });

  it('retries an unreachable database for a bounded time, then exits naming it', async () => {
    const run = startService({
      DATABASE_URL: 'postgres://u:secretpw@127.0.0.1:1/acme',
      DB_STARTUP_TIMEOUT_MS: '800',
      PORT: '0',
    });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(
      /service: Cannot reach the control-plane database: connection refused; shared database: connection refused; tenant database: connection refused/,
    );
    expect(run.output()).not.toContain('secretpw');
  });

  it('fails fast naming a bad setting', async () => {
    const run = startService({ PORT: 'eighty', DATA_DIR: tempDir() });
    expect(await run.exited).toBe(1);
    expect(run.output().trim()).toBe(
      'service: Invalid setting PORT: expected a whole number between 0 and 65535 (HTTP port)',
    );
  });
});
