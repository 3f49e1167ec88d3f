import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyRepository, UserRepository } from '@service/auth';
import { httpClient, type HttpClient } from './support/http-client.ts';
import { createActor, signIn } from './support/identity-fixtures.ts';
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp } from './support/start-test-app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

describe('sign-in sessions', () => {
  it('signs in with an HttpOnly SameSite cookie and signs out', async () => {
    const res = await fetch(`${app.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' },
      body: JSON.stringify({ email: 'admin@example.com', password: TEST_ADMIN_PASSWORD }),
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^service_session=[\w-]{43};/);
    expect(cookie).toMatch(/httponly/i);
    expect(cookie).toMatch(/samesite=strict/i);
    const session = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    expect((await session.get('/api/auth/me')).body.user.email).toBe('admin@example.com');
    expect((await session.post('/api/auth/logout')).status).toBe(204);
    expect((await session.get('/api/auth/me')).status).toBe(401);
  });

  it('refuses a wrong password with the same answer as an unknown email', async () => {
    const anon = httpClient(app.url, { headers: { 'x-requested-with': 'XMLHttpRequest' } });
    const wrong = await anon.post('/api/auth/login', { email: 'admin@example.com', password: 'nope-nope-nope' });
    const unknown = await anon.post('/api/auth/login', { email: 'ghost@example.com', password: 'nope-nope-nope' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('self-hosted: signs in without naming the organization, as before; naming its one organization works too', async () => {
    const anon = httpClient(app.url, { headers: { 'x-requested-with': 'XMLHttpRequest' } });
    expect((await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD, 'Workspace')).cookie).toMatch(
      /^service_session=/,
    );
    const otherOrganization = await anon.post('/api/auth/login', {
      email: 'admin@example.com',
      password: TEST_ADMIN_PASSWORD,
      organization: 'elsewhere',
    });
    const wrong = await anon.post('/api/auth/login', { email: 'admin@example.com', password: 'nope-nope-nope' });
    expect(otherOrganization.status).toBe(401);
    expect(otherOrganization.body).toEqual(wrong.body);
    // The sign-in page asks for email and password only.
    expect(await (await fetch(`${app.url}/`)).text()).not.toContain('id="organization"');
  });

  it('protects cookie-authenticated changes against cross-site requests', async () => {
    const session = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const noHeader = await httpClient(app.url, { headers: { cookie: session.cookie } }).post('/api/profile/api-keys', {
      name: 'x',
      scope: 'read-only',
    });
    expect(noHeader.status).toBe(403);
    expect(noHeader.body.error.code).toBe('cross_site_request');
    const otherOrigin = await session.post(
      '/api/profile/api-keys',
      { name: 'x', scope: 'read-only' },
      { headers: { origin: 'https://evil.example' } },
    );
    expect(otherOrigin.status).toBe(403);
  });

  it('checks at most 5 guesses of 40 sent in parallel: the throttle counts before it checks', async () => {
    const anon = httpClient(app.url, { headers: { 'x-requested-with': 'XMLHttpRequest' } });
    await new UserRepository(app.dbs.controlPlane).create({
      organizationId: (await app.dbs.controlPlane('organizations').first()).id,
      email: 'parallel@example.com',
      name: 'P',
      role: 'member',
      password: 'the-right-password-1',
    });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        anon.post('/api/auth/login', { email: 'parallel@example.com', password: `wrong-guess-${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
    // The right password is refused too while the account is throttled...
    expect(
      (await anon.post('/api/auth/login', { email: 'parallel@example.com', password: 'the-right-password-1' })).status,
    ).toBe(429);
  });

  it('does not count successful sign-ins against the throttle', async () => {
    for (let i = 0; i < 8; i++)
      expect((await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD)).cookie).toMatch(/^service_session=/);
  });

  it('refuses U+0000 in the email or password with 400 naming the field, before any key or session', async () => {
    const anon = httpClient(app.url, { headers: { 'x-requested-with': 'XMLHttpRequest' } });
    const email = await anon.post('/api/auth/login', { email: 'admin@example.com\u0000', password: 'x' });
    expect(email.status).toBe(400);
    expect(email.body.error).toMatchObject({
      code: 'validation_failed',
      details: [{ path: '/email', message: 'must not contain the character U+0000 (NUL)' }],
    });
    const password = await anon.post('/api/auth/login', { email: 'admin@example.com', password: 'pass\u0000word' });
    expect(password.body.error.details).toEqual([
      { path: '/password', message: 'must not contain the character U+0000 (NUL)' },
    ]);
  });

  it('does not read bodies before the session is checked', async () => {
    const anon = httpClient(app.url, { headers: { 'x-requested-with': 'XMLHttpRequest' } });
    const res = await anon.post('/api/profile/api-keys', '{"name": ', {
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(401);
    const rest = await httpClient(`${app.url}/rest/v1`).post('/clients', '{"name": ', {
      headers: { 'content-type': 'application/json' },
    });
    expect(rest.status).toBe(401);
  });

  it('slows down repeated failed sign-ins for one account', async () => {
    const anon = httpClient(app.url, { headers: { 'x-requested-with': 'XMLHttpRequest' } });
    await app.dbs.controlPlane('users').insert({
      organization_id: (await app.dbs.controlPlane('organizations').first()).id,
      email: 'target@example.com',
      name: 'T',
      role: 'member',
    });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++)
      statuses.push(
        (await anon.post('/api/auth/login', { email: 'target@example.com', password: `guess-${i}-xxxxxx` })).status,
      );
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429]);
    const limited = await anon.post('/api/auth/login', { email: 'target@example.com', password: 'whatever-xxxx' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('personal API keys', () => {
  it('creates keys of both scopes, shows the value once, and a read-only key cannot write', async () => {
    const session = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const rw = await session.post('/api/profile/api-keys', { name: 'pipeline', scope: 'read-write' });
    expect(rw.status).toBe(201);
    expect(rw.body.key).toMatch(/^service_sk_[0-9A-Za-z]{43}$/);
    expect(rw.body.apiKey).toMatchObject({
      name: 'pipeline',
      scope: 'read-write',
      state: 'active',
      clientIds: [],
      lastUsedAt: null,
    });
    const oneYear = Date.now() + 365 * 86_400_000;
    expect(Math.abs(Date.parse(rw.body.apiKey.expiresAt) - oneYear)).toBeLessThan(60_000);
    const ro = await session.post('/api/profile/api-keys', { name: 'reader', scope: 'read-only' });
    const list = await session.get('/api/profile/api-keys');
    expect(list.text).not.toContain(rw.body.key);
    expect(list.text).not.toContain(ro.body.key);
    expect(list.body.map((k: { name: string }) => k.name)).toEqual(expect.arrayContaining(['pipeline', 'reader']));

    const writer = httpClient(`${app.url}/rest/v1`, { token: rw.body.key });
    const reader = httpClient(`${app.url}/rest/v1`, { token: ro.body.key });
    const created = await writer.post('/clients', { name: 'Initech' });
    expect(created.status).toBe(201);
    expect((await reader.get(`/clients/${created.body.id}`)).status).toBe(200);
    const denied = await reader.post('/clients', { name: 'Nope' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('read_only_key');
    expect((await reader.patch(`/clients/${created.body.id}`, { name: 'x' })).body.error.code).toBe('read_only_key');
    expect((await reader.delete(`/clients/${created.body.id}`)).body.error.code).toBe('read_only_key');
    const after = await session.get('/api/profile/api-keys');
    expect(after.body.find((k: { name: string }) => k.name === 'pipeline').lastUsedAt).not.toBeNull();
  });

  it('rejects bad key settings with a message naming the field', async () => {
    const session = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const bad = await session.post('/api/profile/api-keys', { name: '', scope: 'admin' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual(
      expect.arrayContaining(['/name', '/scope']),
    );
    const far = await session.post('/api/profile/api-keys', {
      name: 'x',
      scope: 'read-only',
      expiresAt: '2099-01-01T00:00:00Z',
    });
    expect(far.status).toBe(400);
    expect(far.body.error.message).toMatch(/two years/);
    const past = await session.post('/api/profile/api-keys', {
      name: 'x',
      scope: 'read-only',
      expiresAt: '2020-01-01T00:00:00Z',
    });
    expect(past.status).toBe(400);
  });

  it('refuses allow-list client ids that are not clients of the organization with 422 invalid_reference', async () => {
    const session = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const owner = await createActor(app, { role: 'member' });
    const real = (await owner.api.post('/clients', { name: 'Allow-listed Corp' })).body.id;
    const unknown = '3f2b8c1e-5d4a-4b6f-9e7d-2a1c0b9f8e7d';
    const refused = await session.post('/api/profile/api-keys', {
      name: 'typo',
      scope: 'read-write',
      clientIds: [real, unknown],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'invalid_reference',
      details: [{ path: '/clientIds/1', message: 'is not a client of your organization' }],
    });
    const keys = (await session.get('/api/profile/api-keys')).body as Array<{ name: string }>;
    expect(keys.some((k) => k.name === 'typo')).toBe(false);
    const created = await session.post('/api/profile/api-keys', {
      name: 'good',
      scope: 'read-write',
      clientIds: [real],
    });
    expect(created.status).toBe(201);
    expect(created.body.apiKey.clientIds).toEqual([real]);
    expect(created.headers.get('location')).toBe(`${app.url}/api/profile/api-keys/${created.body.apiKey.id}`);
    const patched = await session.patch(`/api/profile/api-keys/${created.body.apiKey.id}`, { clientIds: [unknown] });
    expect(patched.status).toBe(422);
    expect(patched.body.error.details).toEqual([
      { path: '/clientIds/0', message: 'is not a client of your organization' },
    ]);
    expect(
      (await session.get('/api/profile/api-keys')).body.find((k: { id: string }) => k.id === created.body.apiKey.id)
        .clientIds,
    ).toEqual([real]);
    // A trashed client is still a client: it can be restored.
    await app.dbs.tenant('clients').where({ id: real }).update({ deleted_at: new Date() });
    expect((await session.patch(`/api/profile/api-keys/${created.body.apiKey.id}`, { clientIds: [real] })).status).toBe(
      200,
    );
  });

  it("the document's example of a new key can be sent as it is", async () => {
    const session = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const doc = (await httpClient(app.url).get('/api/rest-docs/openapi')).body;
    const example = doc.paths['/api/profile/api-keys'].post.requestBody.content['application/json'].example;
    const res = await session.post('/api/profile/api-keys', example);
    expect(res.status, res.text).toBe(201);
  });

  it(
    'answers 401 with one message for missing, malformed, unknown, expired, revoked ' + 'and deactivated keys',
    async () => {
      const anon = httpClient(`${app.url}/rest/v1`);
      const member = await createActor(app, { role: 'member' });
      const expired = await createActor(app, { expiresAt: new Date(Date.now() + 1_000) });
      await app.dbs
        .controlPlane('api_keys')
        .where({ id: expired.keyId })
        .update({ expires_at: new Date(Date.now() - 1000) });
      const revoked = await createActor(app);
      await new ApiKeyRepository(app.dbs.controlPlane).revoke(
        (await app.dbs.controlPlane('organizations').first()).id,
        revoked.keyId,
        revoked.user.id,
      );
      const deactivated = await createActor(app);
      await app.dbs.controlPlane('users').where({ id: deactivated.user.id }).update({ active: false });

      const answers = await Promise.all([
        anon.get('/clients'),
        anon.get('/clients', { headers: { authorization: 'Basic abc' } }),
        anon.get('/clients', { token: 'service_sk_tooshort' }),
        anon.get('/clients', { token: `service_sk_${'A'.repeat(43)}` }),
        expired.api.get('/clients'),
        revoked.api.get('/clients'),
        deactivated.api.get('/clients'),
      ]);
      for (const a of answers) {
        expect(a.status).toBe(401);
        expect(a.body).toEqual(answers[0].body);
      }
      expect((await member.api.get('/clients')).status).toBe(200);
    },
  );

  it(
    'lets administrators see and revoke every key; deactivating a user revokes keys ' + 'and sessions at once',
    async () => {
      const admin = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
      const created = await admin.post('/api/admin/users', {
        email: 'pen@example.com',
        name: 'Pen Tester',
        role: 'member',
        password: 'pen-tester-password',
      });
      expect(created.status).toBe(201);
      const pen = await signIn(app, 'pen@example.com', 'pen-tester-password');
      const k1 = await pen.post('/api/profile/api-keys', { name: 'one', scope: 'read-write' });
      const k2 = await pen.post('/api/profile/api-keys', { name: 'two', scope: 'read-write' });
      const all = await admin.get('/api/admin/api-keys');
      const mine = all.body.filter((k: { ownerEmail: string }) => k.ownerEmail === 'pen@example.com');
      expect(mine).toHaveLength(2);
      expect(all.text).not.toContain(k1.body.key);

      expect((await admin.post(`/api/admin/api-keys/${k1.body.apiKey.id}/revoke`)).body.state).toBe('revoked');
      expect((await httpClient(`${app.url}/rest/v1`, { token: k1.body.key }).get('/clients')).status).toBe(401);
      expect((await httpClient(`${app.url}/rest/v1`, { token: k2.body.key }).get('/clients')).status).toBe(200);

      // A non-administrator cannot use the administration endpoints.
      expect((await pen.get('/api/admin/api-keys')).status).toBe(403);

      const off = await admin.post(`/api/admin/users/${created.body.user.id}/deactivate`);
      expect(off.body.active).toBe(false);
      expect((await httpClient(`${app.url}/rest/v1`, { token: k2.body.key }).get('/clients')).status).toBe(401);
      expect((await pen.get('/api/auth/me')).status).toBe(401);
      const keys = await admin.get('/api/admin/api-keys');
      expect(
        keys.body
          .filter((k: { ownerEmail: string; state: string }) => k.ownerEmail === 'pen@example.com')
          .map((k: { state: string }) => k.state),
      ).toEqual(['revoked', 'revoked']);
    },
  );

  it("re-reads the owner's role on every request", async () => {
    const actor = await createActor(app, { role: 'member' });
    expect((await actor.api.post('/clients', { name: 'Before' })).status).toBe(201);
    await app.dbs.controlPlane('users').where({ id: actor.user.id }).update({ role: 'viewer' });
    const after = await actor.api.post('/clients', { name: 'After' });
    expect(after.status).toBe(403);
    expect(after.body.error.code).toBe('forbidden');
  });

  it('keeps one active administrator', async () => {
    const admin = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const me = (await admin.get('/api/auth/me')).body.user;
    const demote = await admin.patch(`/api/admin/users/${me.id}`, { role: 'member' });
    expect(demote.status).toBe(403);
  });

  it('keeps one active administrator when two demote or deactivate each other at the same moment', async () => {
    const separate = await startTestApp();
    try {
      const users = new UserRepository(separate.dbs.controlPlane);
      const org = (await separate.dbs.controlPlane('organizations').first()).id;
      const first = await users.get(
        org,
        (await separate.dbs.controlPlane('users').where({ email: 'admin@example.com' }).first()).id,
      );
      const second = await users.create({
        organizationId: org,
        email: 'second-admin@example.com',
        name: 'Second',
        role: 'admin',
        password: 'second-admin-password',
      });
      // Why 401 is a documented outcome for deactivation only: when one deactivation commits
      // first, the other caller's own sessions are revoked with it, so its request is no longer
      // signed in. A demoted administrator is still signed in, and is refused as a member (403).
      for (const { change, loserMayAnswer } of [
        {
          change: (s: HttpClient, id: string) => s.patch(`/api/admin/users/${id}`, { role: 'member' }),
          loserMayAnswer: [403],
        },
        {
          change: (s: HttpClient, id: string) => s.post(`/api/admin/users/${id}/deactivate`),
          loserMayAnswer: [401, 403],
        },
      ]) {
        for (let round = 0; round < 5; round++) {
          const a = await signIn(separate, 'admin@example.com', TEST_ADMIN_PASSWORD);
          const b = await signIn(separate, 'second-admin@example.com', 'second-admin-password');
          const [ab, ba] = await Promise.all([change(a, second.id), change(b, first!.id)]);
          // The invariant: exactly one change wins, its author stays the one active administrator.
          expect(await users.countActiveAdmins(org)).toBe(1);
          expect([ab.status, ba.status].filter((s) => s === 200)).toHaveLength(1);
          const [winner, loser, loserAnswer] =
            ab.status === 200 ? [first!.id, second.id, ba.status] : [second.id, first!.id, ab.status];
          expect(loserMayAnswer).toContain(loserAnswer);
          const remaining = await separate.dbs
            .controlPlane('users')
            .where({ organization_id: org, role: 'admin', active: true });
          expect(remaining.map((u) => u.id)).toEqual([winner]);
          await separate.dbs
            .controlPlane('users')
            .where({ id: loser })
            .update({ role: 'admin', active: true, deactivated_at: null });
        }
      }
    } finally {
      await separate.stop();
    }
  });
});

describe('behind a TLS-terminating reverse proxy', () => {
  const viaProxy = {
    'content-type': 'application/json',
    'x-requested-with': 'XMLHttpRequest',
    origin: 'https://reports.example.com',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'reports.example.com',
  };
  const body = JSON.stringify({ email: 'admin@example.com', password: TEST_ADMIN_PASSWORD });

  it('signs in from the public HTTPS origin with a Secure cookie when the proxy is trusted', async () => {
    const proxied = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
    try {
      const res = await fetch(`${proxied.url}/api/auth/login`, { method: 'POST', headers: viaProxy, body });
      expect(res.status).toBe(200);
      const cookie = res.headers.get('set-cookie')!;
      expect(cookie).toMatch(/;\s*secure/i);
      // The cookie works for the next request through the proxy, and state changes from the same origin pass.
      const session = cookie.split(';')[0]!;
      const created = await fetch(`${proxied.url}/api/profile/api-keys`, {
        method: 'POST',
        headers: { ...viaProxy, cookie: session },
        body: JSON.stringify({ name: 'via proxy', scope: 'read-only' }),
      });
      expect(created.status).toBe(201);
      const otherOrigin = await fetch(`${proxied.url}/api/auth/login`, {
        method: 'POST',
        headers: { ...viaProxy, origin: 'https://evil.example' },
        body,
      });
      expect(otherOrigin.status).toBe(403);
    } finally {
      await proxied.stop();
    }
  });

  it('does not believe forwarded headers from a peer that is not a trusted proxy', async () => {
    const res = await fetch(`${app.url}/api/auth/login`, { method: 'POST', headers: viaProxy, body });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('cross_site_request');
    const direct = await fetch(`${app.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest', origin: app.url },
      body,
    });
    expect(direct.status).toBe(200);
    expect(direct.headers.get('set-cookie')).not.toMatch(/secure/i);
  });
});

describe('/api/version extras', () => {
  it('shows sha and node only to a signed-in administrator session', async () => {
    const anon = await httpClient(app.url).get('/api/version');
    expect(Object.keys(anon.body).sort()).toEqual(['edition', 'version']);
    const admin = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const extra = await admin.get('/api/version');
    expect(extra.body).toEqual({
      version: anon.body.version,
      edition: 'self-hosted',
      sha: expect.stringMatching(/^([0-9a-f]{40}|unknown)$/),
      node: process.version,
    });
    await admin.post('/api/admin/users', {
      email: 'member2@example.com',
      name: 'M',
      role: 'member',
      password: 'member-password-2',
    });
    const member = await signIn(app, 'member2@example.com', 'member-password-2');
    expect(Object.keys((await member.get('/api/version')).body).sort()).toEqual(['edition', 'version']);
  });
});

describe('licence', () => {
  it('answers 403 api_not_licensed without a licence with the API feature, and works again with one', async () => {
    const actor = await createActor(app);
    const saved = app.license;
    app.license = null;
    try {
      const res = await actor.api.get('/clients');
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('api_not_licensed');
    } finally {
      app.license = saved;
    }
    expect((await actor.api.get('/clients')).status).toBe(200);
    expect(app.license?.kind).toBe('evaluation');
  });
});
