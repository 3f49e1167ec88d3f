import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserRepository } from '@service/auth';
import { httpClient, type ApiResponse } from './support/http-client.ts';
import { signIn } from './support/identity-fixtures.ts';
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp } from './support/start-test-app.ts';

// Hosted privacy between organizations: an e-mail address is unique per organization, so nothing an
// organization's administrator or a stranger can send tells whether an address has an account in
// another organization. Alpha is the first organization (created on first start, slug `workspace`);
// Beta is a second one. Only the control plane is involved (users, sessions, sign-in), so Beta is
// recorded there directly; provisioning a real tenant database is tenancy.process.test.ts's job.

let app: TestApp;
let users: UserRepository;
let alphaId: string;
let betaId: string;
const BETA_PASSWORD = 'beta-only-password-1';
const anon = () => httpClient(app.url, { headers: { 'x-requested-with': 'XMLHttpRequest' } });

beforeAll(async () => {
  app = await startTestApp({ SERVICE_EDITION: 'hosted' }, { evaluation: false });
  users = new UserRepository(app.dbs.controlPlane);
  alphaId = (await app.dbs.controlPlane('organizations').first('id')).id;
  [{ id: betaId }] = await app.dbs
    .controlPlane('organizations')
    .insert({ name: 'Beta', slug: 'beta', tenant_server: 'default', tenant_database: 'tenant_beta_not_used' })
    .returning('id');
  for (const email of ['shared@example.com', 'only-in-beta@example.com'])
    await users.create({ organizationId: betaId, email, name: 'Beta user', role: 'member', password: BETA_PASSWORD });
});
afterAll(async () => {
  await app?.stop();
});

/** What a client can compare between two answers: status, headers (but the per-request ones) and body. */
function observable(res: ApiResponse) {
  const headers = [...res.headers.entries()].filter(([name]) => !['date', 'x-request-id'].includes(name));
  return { status: res.status, headers, text: res.text };
}

describe('hosted: e-mail addresses are unique per organization', () => {
  it('creating a user answers the same whether or not the address has an account in another organization', async () => {
    const admin = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD, 'workspace');
    const create = (email: string) => admin.post('/api/admin/users', { email, name: 'New user', role: 'member' });
    const elsewhere = await create('Shared@Example.com');
    const fresh = await create('fresh@example.com');
    expect(elsewhere.status).toBe(201);
    expect(fresh.status).toBe(201);
    const shape = (res: ApiResponse) => ({
      headers: [...res.headers.keys()].filter((n) => !['date', 'x-request-id', 'content-length'].includes(n)),
      user: Object.keys(res.body.user).sort(),
      body: Object.keys(res.body).sort(),
    });
    expect(shape(elsewhere)).toEqual(shape(fresh));
    expect(elsewhere.body.user).toMatchObject({ email: 'shared@example.com', role: 'member', active: true });
    expect(typeof elsewhere.body.password).toBe('string');
    expect((await users.findByEmail(alphaId, 'shared@example.com'))?.id).toBe(elsewhere.body.user.id);

    // Within the organization the address is taken, in any letter case: that conflict is Alpha's own business.
    const again = await create('SHARED@example.com');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('email_taken');
    expect(again.body.error.message).not.toMatch(/beta/i);

    // Beta's account is untouched, and each organization lists only its own.
    const holders = await app.dbs.controlPlane('users').where({ email: 'shared@example.com' }).orderBy('created_at');
    expect(holders.map((u) => u.organization_id)).toEqual([betaId, alphaId]);
    const listed = (await admin.get('/api/admin/users')).body as Array<{ email: string }>;
    expect(listed.map((u) => u.email)).not.toContain('only-in-beta@example.com');
  });

  it('lets each account of one address sign in to its own organization, even with the same password', async () => {
    const alphaUser = (await users.findByEmail(alphaId, 'shared@example.com'))!;
    const betaUser = (await users.findByEmail(betaId, 'shared@example.com'))!;
    // The organization named decides, never the password: give both accounts the same one.
    await users.setPassword(alphaUser.id, BETA_PASSWORD);
    for (const [slug, user] of [
      ['workspace', alphaUser],
      ['BETA', betaUser],
    ] as const) {
      const session = await signIn(app, 'shared@example.com', BETA_PASSWORD, slug);
      const me = await session.get('/api/auth/me');
      expect(me.status).toBe(200);
      expect(me.body.user).toMatchObject({ id: user.id, email: 'shared@example.com' });
    }
    expect(alphaUser.organizationId).toBe(alphaId);
    expect(betaUser.organizationId).toBe(betaId);
  });

  it(
    'answers an unknown address, a wrong password, an address of another organization and an unknown ' +
      'organization identically, after the same queries',
    async () => {
      const queries: string[] = [];
      const record = (q: { sql: string }) => {
        if (/\b(users|organizations)\b/.test(q.sql)) queries.push(q.sql);
      };
      app.dbs.controlPlane.on('query', record);
      const attempt = async (body: { email: string; password: string; organization: string }) => {
        queries.length = 0;
        const res = await anon().post('/api/auth/login', body);
        return { answer: observable(res), queries: [...queries] };
      };
      try {
        const unknownAddress = await attempt({
          email: 'nobody@example.com',
          password: 'some-password-1',
          organization: 'workspace',
        });
        const wrongPassword = await attempt({
          email: 'admin@example.com',
          password: 'some-password-1',
          organization: 'workspace',
        });
        // Even the right password of the other organization's account opens nothing here.
        const addressElsewhere = await attempt({
          email: 'only-in-beta@example.com',
          password: BETA_PASSWORD,
          organization: 'workspace',
        });
        const unknownOrganization = await attempt({
          email: 'only-in-beta@example.com',
          password: BETA_PASSWORD,
          organization: 'no-such-org',
        });
        expect(unknownAddress.answer.status).toBe(401);
        expect(unknownAddress.answer.text).toMatch(/"code":"unauthenticated"/);
        for (const other of [wrongPassword, addressElsewhere, unknownOrganization]) {
          expect(other.answer).toEqual(unknownAddress.answer);
          // One lookup of the same shape; the password check that follows runs in every case (a
          // stand-in hash when there is no account), so the work does not depend on what exists.
          expect(other.queries).toEqual(unknownAddress.queries);
        }
        expect(unknownAddress.queries).toHaveLength(1);
      } finally {
        app.dbs.controlPlane.off('query', record);
      }
    },
  );

  it('needs the organization to sign in, with an answer that depends only on the request', async () => {
    const known = await anon().post('/api/auth/login', { email: 'shared@example.com', password: BETA_PASSWORD });
    const unknown = await anon().post('/api/auth/login', { email: 'nobody@example.com', password: BETA_PASSWORD });
    expect(known.status).toBe(400);
    expect(known.body.error).toMatchObject({
      code: 'validation_failed',
      details: [{ path: '/organization', message: expect.stringMatching(/hosted/) }],
    });
    expect(observable(known)).toEqual(observable(unknown));
    const bad = await anon().post('/api/auth/login', {
      email: 'a@example.com',
      password: 'x',
      organization: 'no slug',
    });
    expect(bad.status).toBe(400);
  });

  it('asks for the organization on the sign-in page, filled in from the sign-in link', async () => {
    const linked = await (await fetch(`${app.url}/?organization=beta`)).text();
    expect(linked).toMatch(/<input id="organization" name="organization"[^>]*value="beta"/);
    const plain = await (await fetch(`${app.url}/`)).text();
    expect(plain).toMatch(/<input id="organization" name="organization"[^>]*value=""[^>]*autofocus/);
    const hostile = await (await fetch(`${app.url}/?organization=%22%3E%3Cscript%3Ex%3C%2Fscript%3E`)).text();
    expect(hostile).not.toContain('<script>x');
    expect(hostile).toMatch(/<input id="organization"[^>]*value=""/);
  });
});
