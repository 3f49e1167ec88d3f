import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyRepository } from '@service/auth';
import { httpClient } from './support/http-client.ts';
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

  it('protects cookie-authenticated changes against cross-site requests', async () => {
    const session = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const noHeader = await httpClient(app.url, { headers: { cookie: session.cookie } }).post('/api/profile/api-keys', { name: 'x', scope: 'read-only' });
    expect(noHeader.status).toBe(403);
    expect(noHeader.body.error.code).toBe('cross_site_request');
    const otherOrigin = await session.post('/api/profile/api-keys', { name: 'x', scope: 'read-only' }, { headers: { origin: 'https://evil.example' } });
    expect(otherOrigin.status).toBe(403);
  });

  it('slows down repeated failed sign-ins for one account', async () => {
    const anon = httpClient(app.url, { headers: { 'x-requested-with': 'XMLHttpRequest' } });
    await app.dbs.controlPlane('users').insert({ organization_id: (await app.dbs.controlPlane('organizations').first()).id, email: 'target@example.com', name: 'T', role: 'member' });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await anon.post('/api/auth/login', { email: 'target@example.com', password: `guess-${i}-xxxxxx` })).status);
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
    expect(rw.body.apiKey).toMatchObject({ name: 'pipeline', scope: 'read-write', state: 'active', clientIds: [], lastUsedAt: null });
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
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual(expect.arrayContaining(['/name', '/scope']));
    const far = await session.post('/api/profile/api-keys', { name: 'x', scope: 'read-only', expiresAt: '2099-01-01T00:00:00Z' });
    expect(far.status).toBe(400);
    expect(far.body.error.message).toMatch(/two years/);
    const past = await session.post('/api/profile/api-keys', { name: 'x', scope: 'read-only', expiresAt: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
  });

  it('answers 401 with one message for missing, malformed, unknown, expired, revoked and deactivated keys', async () => {
    const anon = httpClient(`${app.url}/rest/v1`);
    const member = await createActor(app, { role: 'member' });
    const expired = await createActor(app, { expiresAt: new Date(Date.now() + 1_000) });
    await app.dbs.controlPlane('api_keys').where({ id: expired.keyId }).update({ expires_at: new Date(Date.now() - 1000) });
    const revoked = await createActor(app);
    await new ApiKeyRepository(app.dbs.controlPlane).revoke((await app.dbs.controlPlane('organizations').first()).id, revoked.keyId, revoked.user.id);
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
      expect(a.body).toEqual(answers[0]!.body);
    }
    expect((await member.api.get('/clients')).status).toBe(200);
  });

  it('lets administrators see and revoke every key; deactivating a user revokes keys and sessions at once', async () => {
    const admin = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const created = await admin.post('/api/admin/users', { email: 'pen@example.com', name: 'Pen Tester', role: 'member', password: 'pen-tester-password' });
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
    expect(keys.body.filter((k: { ownerEmail: string; state: string }) => k.ownerEmail === 'pen@example.com').map((k: { state: string }) => k.state)).toEqual(['revoked', 'revoked']);
  });

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
});

describe('/api/version extras', () => {
  it('shows sha and node only to a signed-in administrator session', async () => {
    const anon = await httpClient(app.url).get('/api/version');
    expect(Object.keys(anon.body).sort()).toEqual(['edition', 'version']);
    const admin = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const extra = await admin.get('/api/version');
    expect(extra.body).toEqual({ version: anon.body.version, edition: 'self-hosted', sha: expect.stringMatching(/^([0-9a-f]{40}|unknown)$/), node: process.version });
    await admin.post('/api/admin/users', { email: 'member2@example.com', name: 'M', role: 'member', password: 'member-password-2' });
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
