// The hosted edition with two organizations whose tenant databases live on two PostgreSQL servers:
// provisioning from the command line, isolation on every route, and two service processes that
// share nothing but the databases.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserRepository } from '@service/auth';
import { silentLogger, startEmbeddedServer, type EmbeddedServer } from '@service/db';
import { createActor, signIn, type Actor } from './support/identity-fixtures.ts';
import { httpClient, type ApiResponse } from './support/http-client.ts';
import { PROCESS_START_MS, processBudgetMs } from '@service/test-lanes';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const ADMIN_A = { email: 'owner@alpha.example', password: 'alpha-owner-password-1' };

let second: EmbeddedServer;
let secondDir: string;
let env: Record<string, string>;
let app: TestApp;
let betaId: string;
let betaPassword: string;
const children: ChildProcess[] = [];

function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return adminWith({}, ...args);
}

function adminWith(
  extra: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'apps/api/src/admin/main.ts', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env, ...extra } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function databaseExists(serverUrl: string, name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    return (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  secondDir = mkdtempSync(path.join(tmpdir(), 'service-tenancy-api-pg-'));
  second = await startEmbeddedServer({
    dataDir: secondDir,
    logger: silentLogger,
    lock: false,
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
  });
  const settings = {
    SERVICE_EDITION: 'hosted',
    TENANT_SERVERS: `eu2=${second.baseUrl}`,
    SERVICE_ADMIN_EMAIL: ADMIN_A.email,
    SERVICE_ADMIN_PASSWORD: ADMIN_A.password,
    FILES_DIR: path.join(secondDir, 'files'),
  };
  // The first organization (Alpha) is created on first start, in the configured tenant database.
  app = await startTestApp(settings, { evaluation: false, rateLimitStore: 'postgres' });
  const urls = app.databases.urls;
  env = {
    ...settings,
    CONTROL_PLANE_DATABASE_URL: urls.controlPlane,
    SHARED_DATABASE_URL: urls.shared,
    TENANT_DATABASE_URL: urls.tenant,
  };
  await app.dbs.controlPlane('organizations').update({ plan: 'business' });
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await app?.stop();
  await second?.stop();
  if (secondDir) rmSync(secondDir, { recursive: true, force: true });
});

describe('organizations from the command line', () => {
  it(
    'create-organization provisions Beta on the second server: database, migrations, ' + 'library, administrator',
    async () => {
      const run = await admin(
        'create-organization',
        '--name',
        'Beta',
        '--plan',
        'business',
        '--server',
        'eu2',
        '--admin-email',
        'Owner@Beta.example',
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^ok recorded|ok database_created/m);
      const created =
        /Created organization Beta \(([0-9a-f-]{36})\), plan business, tenant database (tenant_[0-9a-f]{32}) on eu2: active\./.exec(
          run.stdout,
        );
      expect(created, run.stdout).not.toBeNull();
      betaId = created![1]!;
      betaPassword = /password: (\S+) \(shown once/.exec(run.stdout)![1]!;
      expect(await databaseExists(second.baseUrl, created![2]!)).toBe(true);

      // Running it again finds nothing to do and creates nothing twice.
      const again = await admin(
        'create-organization',
        '--name',
        'Beta',
        '--plan',
        'business',
        '--server',
        'eu2',
        '--admin-email',
        'owner@beta.example',
        '--id',
        betaId,
      );
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(`Resumed organization Beta (${betaId})`);
      expect(again.stdout).not.toContain('password:');

      const list = await admin('list-organizations');
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(new RegExp(`${betaId}\\s+business\\s+eu2\\s+tenant_\\w+\\s+active\\s+beta\\s+Beta`));
      expect(list.stdout).toMatch(/default\s+default\s+active/);

      // User commands name the organization once there are several.
      const ambiguous = await admin('list-users');
      expect(ambiguous.code).not.toBe(0);
      expect(ambiguous.stderr).toMatch(/There are 2 organizations; name one with --organization <id>\./);
      const tess = await admin(
        'create-user',
        '--organization',
        betaId,
        '--email',
        'tess@beta.example',
        '--name',
        'Tess',
        '--role',
        'member',
      );
      expect(tess.code, tess.stderr).toBe(0);
      const users = await admin('list-users', '--organization', betaId);
      expect(users.stdout).toMatch(/owner@beta\.example\s+admin\s+active/);
      expect(users.stdout).toMatch(/tess@beta\.example\s+member\s+active/);
      expect(users.stdout).not.toContain(ADMIN_A.email);

      // Beta got the global library in its own database.
      const beta = await createActor(app, { role: 'admin', organizationId: betaId });
      const library = await beta.api.get('/library?kind=finding-template&per_page=1');
      expect(library.status).toBe(200);
      expect(Number(library.headers.get('x-total-count'))).toBeGreaterThan(50);
    },
    processBudgetMs(6),
  );

  it(
    'user commands name the organization: one address can be a user of both',
    async () => {
      // E-mail addresses are unique per organization: Alpha's administrator's address becomes a
      // Beta user too, and a user command then needs the organization to know which one it means.
      const same = await admin(
        'create-user',
        '--organization',
        betaId,
        '--email',
        ADMIN_A.email,
        '--name',
        'A',
        '--role',
        'viewer',
      );
      expect(same.code, same.stderr).toBe(0);
      const which = await admin('reset-password', '--email', ADMIN_A.email);
      expect(which.stderr).toMatch(/There are 2 organizations; name one with --organization <id>\./);
      const off = await admin('deactivate-user', '--organization', betaId, '--email', ADMIN_A.email);
      expect(off.stdout).toMatch(/Deactivated owner@alpha\.example/);
      const alphaAdmin = await app.dbs
        .controlPlane('users')
        .whereNot({ organization_id: betaId })
        .where({ email: ADMIN_A.email })
        .first();
      expect(alphaAdmin.active).toBe(true);
    },
    processBudgetMs(3),
  );

  it(
    'refuses an unknown server, a plan that does not exist and a self-hosted ' + 'installation, changing nothing',
    async () => {
      const unknown = await admin(
        'create-organization',
        '--name',
        'Gamma',
        '--plan',
        'business',
        '--server',
        'nowhere',
        '--admin-email',
        'it@gamma.example',
      );
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toMatch(/no tenant server "nowhere"/);
      const plan = await admin(
        'create-organization',
        '--name',
        'Gamma',
        '--plan',
        'platinum',
        '--server',
        'eu2',
        '--admin-email',
        'it@gamma.example',
      );
      expect(plan.stderr).toMatch(/Unknown plan "platinum"/);
      const selfHosted = await adminWith(
        { SERVICE_EDITION: 'self-hosted' },
        'create-organization',
        '--name',
        'Gamma',
        '--plan',
        'business',
        '--server',
        'eu2',
        '--admin-email',
        'it@gamma.example',
      );
      expect(selfHosted.code).not.toBe(0);
      expect(selfHosted.stderr).toMatch(
        /This installation is self-hosted\.\nhint: Organizations are managed in the hosted edition/,
      );
      const organizations = await app.dbs.controlPlane('organizations').where({ name: 'Gamma' });
      expect(organizations).toHaveLength(0);
    },
  );
});

describe('two organizations', () => {
  let alpha: Actor;
  let beta: Actor;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const alphaId = (await app.dbs.controlPlane('organizations').whereNot({ id: betaId }).first('id')).id as string;
    alpha = await createActor(app, { role: 'admin', organizationId: alphaId });
    beta = await createActor(app, { role: 'admin', organizationId: betaId });
    const c = async (key: string, path: string, body: object | FormData) => {
      const res = await alpha.api.post(path, body);
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
      ids[key] = res.body.id as string;
    };
    await c('clients', '/clients', { name: 'Alpha client' });
    await alpha.allow(ids.clients!);
    await c('projects', '/projects', { clientId: ids.clients, name: 'Alpha project' });
    await c('reports', '/reports', { projectId: ids.projects, title: 'Alpha report' });
    await c('findings', '/findings', { reportId: ids.reports, title: 'Alpha finding', severity: 'high' });
    ids['report-findings'] = (await alpha.api.get(`/report-findings?report_id=${ids.reports}`)).body[0].id;
    await c('report-tabs', '/report-tabs', { reportId: ids.reports, title: 'Alpha tab' });
    await c('report-links', '/report-links', {
      reportId: ids.reports,
      title: 'Alpha link',
      url: 'https://alpha.example',
    });
    const form = new FormData();
    form.set('findingId', ids.findings!);
    form.set('file', new Blob([PNG]), 'alpha.png');
    await c('evidence-images', '/evidence-images', form);
    await c('finding-library', '/finding-library', { title: 'Alpha template', severity: 'low' });
    await c('report-templates', '/report-templates', { name: 'Alpha report template' });
    await c('style-library', '/style-library', { name: 'Alpha style' });
    await c('narratives', '/narratives', { title: 'Alpha narrative' });
    await c('scoping-templates', '/scoping-templates', { name: 'Alpha scoping' });
    await c('project-types', '/project-types', { name: 'Alpha project type' });
    // A retest of the report: its results are rows of the organization too.
    const retest = await alpha.api.post(`/reports/${ids.reports}/retests`, {});
    expect(retest.status, JSON.stringify(retest.body)).toBe(201);
    ids['retest-results'] = (await alpha.api.get(`/retest-results?report_id=${retest.body.id}`)).body[0].id;
    ids.users = alpha.user.id;
    const external = await createActor(app, { role: 'external', organizationId: alphaId });
    ids.userId = external.user.id;
    expect(
      (await alpha.api.post(`/reports/${ids.reports}/shares`, { userId: external.user.id, access: 'view' })).status,
    ).toBe(200);
    ids['api-keys'] = alpha.keyId;
  });

  it('every REST route answers 404 for the other organization’s ids, and its lists hold none of its rows', async () => {
    const doc = (await httpClient(app.url).get('/api/rest-docs/openapi')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const alphaIds = Object.values(ids);
    const before = new Map<string, string>();
    const checked: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      if (!template.startsWith('/rest/v1/')) continue;
      for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
        if (!item[method]) continue;
        const params = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
        const restPath = template.slice('/rest/v1'.length);
        if (params.length === 0) {
          if (method !== 'get') continue;
          // A list (or the library, the trash): Beta sees none of Alpha's rows.
          const list = await beta.api.get(`${restPath}?per_page=100`);
          expect(list.status, `GET ${restPath}`).toBe(200);
          for (const id of alphaIds) expect(list.text, `GET ${restPath} lists ${id}`).not.toContain(id);
          checked.push(`GET ${restPath}`);
          continue;
        }
        const collection = restPath.split('/')[1]!;
        const concrete = restPath.replace(
          /\{(\w+)\}/g,
          (_m, name: string) => (name === 'id' ? ids[collection] : ids[name])!,
        );
        expect(concrete, template).not.toMatch(/undefined|\{/);
        if (method === 'get') {
          // The same URL works for Alpha: the ids are real, only the organization differs (no Word template was
          // uploaded).
          const own = await alpha.api.get(concrete);
          if (!concrete.endsWith('/word-template')) expect(own.status, `Alpha GET ${concrete}`).not.toBe(404);
          if ((own.headers.get('content-type') ?? '').includes('json')) before.set(concrete, own.text);
        }
        const body = method === 'post' || method === 'patch' || method === 'put' ? {} : undefined;
        const res: ApiResponse = await beta.api.request(method.toUpperCase(), concrete, { body });
        // Why 400 and 422 are accepted for writes: a body is checked before the row is looked up; what matters is that
        // nothing is found or changed.
        const allowed = method === 'get' || method === 'delete' ? [404] : [400, 404, 415, 422];
        expect(
          allowed,
          `${method.toUpperCase()} ${concrete} as Beta: ${res.status} ${res.text.slice(0, 200)}`,
        ).toContain(res.status);
        checked.push(`${method.toUpperCase()} ${template}`);
      }
    }
    expect(checked.length).toBeGreaterThan(60);
    // Nothing Beta sent changed any of Alpha's rows.
    for (const [url, text] of before) expect((await alpha.api.get(url)).text, url).toBe(text);
  });

  it(
    'the session endpoints (administration, own keys) answer 404 for the other ' +
      'organization’s users and keys and list none of them',
    async () => {
      const session = await signIn(app, 'owner@beta.example', betaPassword, 'beta');
      const alphaUser = alpha.user.id;
      for (const [method, url, body] of [
        ['PATCH', `/api/admin/users/${alphaUser}`, { role: 'viewer' }],
        ['POST', `/api/admin/users/${alphaUser}/deactivate`, undefined],
        ['POST', `/api/admin/api-keys/${alpha.keyId}/revoke`, undefined],
        ['PATCH', `/api/profile/api-keys/${alpha.keyId}`, { name: 'taken over' }],
        ['DELETE', `/api/profile/api-keys/${alpha.keyId}`, undefined],
      ] as const) {
        const res = await session.request(method, url, { body });
        expect(res.status, `${method} ${url}: ${res.text}`).toBe(404);
      }
      for (const url of ['/api/admin/users', '/api/admin/api-keys']) {
        const res = await session.get(url);
        expect(res.status).toBe(200);
        expect(res.text).not.toContain(alphaUser);
        expect(res.text).not.toContain(alpha.keyId);
      }
      // Alpha's key still works, unchanged.
      expect((await alpha.api.get('/clients')).status).toBe(200);
    },
  );

  it('a body naming the other organization’s parent answers 422 invalid_reference, as for a missing one', async () => {
    for (const [path, body, field] of [
      ['/projects', { clientId: ids.clients, name: 'x' }, '/clientId'],
      ['/reports', { projectId: ids.projects, title: 'x' }, '/projectId'],
      ['/findings', { reportId: ids.reports, title: 'x', severity: 'low' }, '/reportId'],
      ['/report-tabs', { reportId: ids.reports, title: 'x' }, '/reportId'],
    ] as const) {
      const res = await beta.api.post(path, body);
      expect(res.status, path).toBe(422);
      expect(res.body.error.code).toBe('invalid_reference');
      expect(res.body.error.details[0].path).toBe(field);
    }
  });

  it('the same Idempotency-Key in two organizations makes two rows, each in its own database', async () => {
    const headers = { 'Idempotency-Key': 'same-key-in-two-organizations' };
    const a = await alpha.api.post('/clients', { name: 'Twin' }, { headers });
    const b = await beta.api.post('/clients', { name: 'Twin' }, { headers });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect((await beta.api.get(`/clients/${a.body.id}`)).status).toBe(404);
  });
});

describe('two service processes', () => {
  interface Running {
    child: ChildProcess;
    url: string;
  }
  const processes: Running[] = [];

  async function startProcess(): Promise<Running> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/root',
        ...env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        RATE_LIMIT_STORE: 'postgres',
        RATE_LIMIT_PER_KEY: '30',
        RATE_LIMIT_PER_IP: '100000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const deadline = Date.now() + PROCESS_START_MS;
    while (Date.now() < deadline) {
      const m = /"event":"listening","port":(\d+)/.exec(out);
      if (m) return { child, url: `http://127.0.0.1:${m[1]}` };
      if (child.exitCode !== null) throw new Error(`service exited: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`service did not start: ${out}`);
  }

  beforeAll(async () => {
    // Started one after the other: both migrate (nothing left to do for the second) and refresh the library.
    processes.push(await startProcess());
    processes.push(await startProcess());
  });

  it('each answers health with every tenant server', async () => {
    for (const p of processes) {
      const res = await httpClient(p.url).get('/api/health');
      expect(res.status).toBe(200);
      expect(res.body.tenantServers).toEqual({ default: 'ok', eu2: 'ok' });
    }
  });

  it('share one rate-limit budget per key', async () => {
    const actor = await createActor(app, { role: 'member', organizationId: betaId });
    const [one, two] = processes.map((p) => httpClient(`${p.url}/rest/v1`, { token: actor.key }));
    // Alternately through both until one refuses: one budget of 30 a minute for the key, where two
    // would allow 60. The clock is the real one, so a burst that crosses a minute boundary may get
    // up to 30 x (its duration / 60 s) more (the sliding estimate lets the previous minute decay).
    const started = Date.now();
    let allowed = 0;
    let refusal: { headers: Headers } | null = null;
    for (let i = 0; i < 60 && !refusal; i += 1) {
      const res = await (i % 2 === 0 ? one! : two!).get('/clients');
      if (res.status === 429) refusal = res;
      else {
        expect(res.status).toBe(200);
        allowed += 1;
      }
    }
    const elapsed = Date.now() - started;
    expect(refusal).not.toBeNull();
    expect(Number(refusal!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(allowed).toBeGreaterThanOrEqual(30);
    expect(allowed).toBeLessThanOrEqual(30 + Math.ceil((30 * elapsed) / 60_000));
    expect(elapsed, 'the burst must be shorter than a minute to tell one budget from two').toBeLessThan(60_000);
  }, 90_000);

  it('create one row for the same idempotent POST sent to both at once', async () => {
    const actor = await createActor(app, { role: 'member', organizationId: betaId });
    const headers = { 'Idempotency-Key': 'one-row-from-two-processes' };
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        httpClient(`${processes[i % 2]!.url}/rest/v1`, { token: actor.key }).post(
          '/clients',
          { name: 'Exactly once' },
          { headers },
        ),
      ),
    );
    for (const a of answers) expect([201, 409], a.text).toContain(a.status);
    const created = answers.filter((a) => a.status === 201);
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
    const list = await httpClient(`${processes[0]!.url}/rest/v1`, { token: actor.key }).get(
      `/clients?q=${encodeURIComponent('Exactly once')}`,
    );
    expect(list.body).toHaveLength(1);
  });

  it('accept a session made on one process on the other', async () => {
    const session = await signIn({ url: processes[0]!.url }, 'owner@beta.example', betaPassword, 'beta');
    const me = await httpClient(processes[1]!.url, {
      headers: { cookie: session.cookie, 'x-requested-with': 'XMLHttpRequest' },
    }).get('/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe('owner@beta.example');
  });

  it(
    'close a deprovisioned organization on both processes: keys, sessions and sign-in ' + 'refused, data kept',
    async () => {
      const actor = await createActor(app, { role: 'admin', organizationId: betaId });
      const session = await signIn({ url: processes[0]!.url }, 'owner@beta.example', betaPassword, 'beta');
      const run = await admin('deprovision-organization', '--id', betaId, '--reason', 'contract ended');
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(
        /Organization Beta \(.+\) is retained: \d+ API keys and \d+ sessions revoked; tenant database tenant_\w+ on eu2 kept\./,
      );
      for (const p of processes) {
        const rest = await httpClient(`${p.url}/rest/v1`, { token: actor.key }).get('/clients');
        expect(rest.status).toBe(401);
        expect(rest.headers.get('www-authenticate')).toMatch(/^Bearer/);
        const me = await httpClient(p.url, {
          headers: { cookie: session.cookie, 'x-requested-with': 'XMLHttpRequest' },
        }).get('/api/auth/me');
        expect(me.status).toBe(401);
        const login = await fetch(`${p.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' },
          body: JSON.stringify({ email: 'owner@beta.example', password: betaPassword, organization: 'beta' }),
        });
        expect(login.status).toBe(401);
      }
      const organization = await app.dbs.controlPlane('organizations').where({ id: betaId }).first();
      expect(organization.state).toBe('retained');
      expect(await databaseExists(second.baseUrl, organization.tenant_database)).toBe(true);
      // The users are kept with the organization.
      expect(await new UserRepository(app.dbs.controlPlane).findByEmail(betaId, 'owner@beta.example')).not.toBeNull();
    },
  );
});
