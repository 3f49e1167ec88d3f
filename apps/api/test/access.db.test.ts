import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from './support/http-client.ts';
import { createActor, signIn, VIAS, type Actor, type Via } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

// The access matrix runs twice: with API keys, and with workspace sessions calling the same
// operations (the browser's way in). A session has the user's role and shares and no allow-list.
describe.each(VIAS)('through %s', (via: Via) => {
  let app: TestApp;
  let admin: Actor;
  let external: Actor;
  // Filled in by beforeAll.
  const ids = {} as Record<
    | 'clientA'
    | 'clientB'
    | 'findingA1'
    | 'findingA2'
    | 'findingB'
    | 'projectA'
    | 'projectB'
    | 'reportA1'
    | 'reportA2'
    | 'reportB'
    | 'tabA1',
    string
  >;
  const PNG = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'base64',
  );

  beforeAll(async () => {
    app = await startTestApp();
    admin = await createActor(app, { via, role: 'admin' });
    external = await createActor(app, { via, role: 'external' });
    const c = async (path: string, body: object) => (await admin.api.post(path, body)).body.id as string;
    ids.clientA = await c('/clients', { name: 'Client A' });
    ids.clientB = await c('/clients', { name: 'Client B' });
    await admin.allow(ids.clientA, ids.clientB);
    await external.allow(ids.clientA, ids.clientB);
    ids.projectA = await c('/projects', { clientId: ids.clientA, name: 'Project A' });
    ids.projectB = await c('/projects', { clientId: ids.clientB, name: 'Project B' });
    ids.reportA1 = await c('/reports', { projectId: ids.projectA, title: 'Report A1' });
    ids.reportA2 = await c('/reports', { projectId: ids.projectA, title: 'Report A2' });
    ids.reportB = await c('/reports', { projectId: ids.projectB, title: 'Report B' });
    ids.tabA1 = await c('/report-tabs', { reportId: ids.reportA1, title: 'Scope' });
    ids.findingA1 = await c('/findings', { reportId: ids.reportA1, title: 'In A1', severity: 'high' });
    ids.findingA2 = await c('/findings', { reportId: ids.reportA2, title: 'In A2', severity: 'low' });
    ids.findingB = await c('/findings', { reportId: ids.reportB, title: 'In B', severity: 'low' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  const missing = '00000000-0000-4000-8000-000000000000';

  describe('external collaborators', () => {
    it('see nothing that is not shared, with the same 404 as a missing id', async () => {
      const notShared = await external.api.get(`/projects/${ids.projectA}`);
      const absent = await external.api.get(`/projects/${missing}`);
      expect(notShared.status).toBe(404);
      expect(notShared.body.error.code).toBe(absent.body.error.code);
      for (const path of [
        '/clients',
        '/projects',
        '/reports',
        '/findings',
        '/report-tabs',
        '/finding-library',
        '/style-library',
      ]) {
        const res = await external.api.get(path);
        expect(res.status, path).toBe(200);
        expect(res.body, path).toEqual([]);
        expect(res.headers.get('x-total-count'), path).toBe('0');
      }
      expect((await external.api.get(`/clients/${ids.clientA}`)).status).toBe(404);
      expect((await external.api.post('/clients', { name: 'Mine' })).status).toBe(404);
      expect((await external.api.get('/users')).body.map((u: { id: string }) => u.id)).toEqual([external.user.id]);
    });

    it('see a project shared for viewing and what belongs to it, and cannot change it', async () => {
      const share = await admin.api.post(`/projects/${ids.projectA}/shares`, {
        userId: external.user.id,
        access: 'view',
      });
      expect(share.status).toBe(200);
      expect(share.body).toEqual([expect.objectContaining({ userId: external.user.id, access: 'view' })]);
      expect((await external.api.get(`/projects/${ids.projectA}`)).status).toBe(200);
      expect((await external.api.get('/reports')).body.map((r: { title: string }) => r.title).sort()).toEqual([
        'Report A1',
        'Report A2',
      ]);
      const findings = await external.api.get('/findings');
      expect(findings.headers.get('x-total-count')).toBe('2');
      expect((await external.api.get(`/projects/${ids.projectB}`)).status).toBe(404);
      const edit = await external.api.patch(`/reports/${ids.reportA1}`, { title: 'Hacked' });
      expect(edit.status).toBe(403);
      expect(edit.body.error.code).toBe('forbidden');
      // Sharing is for admins and members only.
      expect(
        (await external.api.post(`/projects/${ids.projectA}/shares`, { userId: external.user.id, access: 'edit' }))
          .status,
      ).toBe(403);
    });

    it('with one report shared for editing see only that report and its findings, and can edit them', async () => {
      expect((await admin.api.delete(`/projects/${ids.projectA}/shares/${external.user.id}`)).status).toBe(204);
      expect((await external.api.get(`/projects/${ids.projectA}`)).status).toBe(404);
      await admin.api.post(`/reports/${ids.reportA1}/shares`, { userId: external.user.id, access: 'edit' });
      expect((await external.api.get('/reports')).body.map((r: { id: string }) => r.id)).toEqual([ids.reportA1]);
      expect((await external.api.get('/findings')).body.map((f: { id: string }) => f.id)).toEqual([ids.findingA1]);
      expect((await external.api.get(`/findings/${ids.findingA2}`)).status).toBe(404);
      expect((await external.api.get(`/report-tabs?report_id=${ids.reportA1}`)).body).toHaveLength(1);
      expect((await external.api.patch(`/reports/${ids.reportA1}`, { title: 'Report A1 (reviewed)' })).status).toBe(
        200,
      );
      expect(
        (await external.api.post('/findings', { reportId: ids.reportA1, title: 'From the client', severity: 'info' }))
          .status,
      ).toBe(201);
      // A body naming a report they cannot see answers like a missing one: 422 naming the field.
      const hidden = await external.api.post('/findings', { reportId: ids.reportA2, title: 'Nope', severity: 'info' });
      expect(hidden.status).toBe(422);
      expect(hidden.body.error).toMatchObject({ code: 'invalid_reference', details: [{ path: '/reportId' }] });
      // Removing the share removes the access at once.
      await admin.api.delete(`/reports/${ids.reportA1}/shares/${external.user.id}`);
      expect((await external.api.get(`/reports/${ids.reportA1}`)).status).toBe(404);
      expect((await external.api.get('/findings')).body).toEqual([]);
    });

    it('can only be given shares when their role is external', async () => {
      const member = await createActor(app, { via, role: 'member' });
      const res = await admin.api.post(`/projects/${ids.projectA}/shares`, { userId: member.user.id, access: 'view' });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('not_external');
    });
  });

  if (via === 'session')
    describe('sessions', () => {
      it('have no client allow-list: the role alone decides edits, deletes and uploads', async () => {
        const member = await createActor(app, { via, role: 'member' });
        expect((await member.api.patch(`/projects/${ids.projectB}`, { name: 'Project B (by a session)' })).status).toBe(
          200,
        );
        const form = new FormData();
        form.set('findingId', ids.findingB);
        form.set('file', new Blob([PNG]), 'shot.png');
        expect((await member.api.post('/evidence-images', form)).status).toBe(201);
      });

      it('need X-Requested-With to change anything and refuse another origin, CORS or not', async () => {
        const { cookie } = await signIn(app, admin.user.email, 'a-long-test-password');
        const bare = httpClient(`${app.url}/rest/v1`, { headers: { cookie } });
        expect((await bare.get('/reports')).status).toBe(200);
        const write = await bare.post('/clients', { name: 'Forged' });
        expect(write.status).toBe(403);
        expect(write.body.error.code).toBe('cross_site_request');
        const foreign = await bare.get('/reports', { headers: { origin: 'https://evil.example' } });
        expect(foreign.status).toBe(403);
        expect(foreign.body.error.code).toBe('cross_site_request');
        const own = await bare.post(
          '/clients',
          { name: 'From the workspace' },
          { headers: { 'x-requested-with': 'XMLHttpRequest', origin: app.url } },
        );
        expect(own.status).toBe(201);
      });

      it('end with the session: a signed-out cookie is 401 like a missing key', async () => {
        const session = await signIn(app, admin.user.email, 'a-long-test-password');
        const rest = httpClient(`${app.url}/rest/v1`, {
          headers: { cookie: session.cookie, 'x-requested-with': 'XMLHttpRequest' },
        });
        expect((await rest.get('/clients')).status).toBe(200);
        expect((await session.post('/api/auth/logout')).status).toBe(204);
        const after = await rest.get('/clients');
        expect(after.status).toBe(401);
        expect(after.body.error.code).toBe('unauthenticated');
      });
    });

  if (via === 'apiKey')
    describe('client allow-list', () => {
      it('guards edits, deletes and evidence uploads on the owning client; reads and plain creates pass', async () => {
        const limited = await createActor(app, { via, role: 'member', clientIds: [ids.clientA] });
        expect((await limited.api.get(`/projects/${ids.projectB}`)).status).toBe(200);
        const edit = await limited.api.patch(`/projects/${ids.projectB}`, { name: 'x' });
        expect(edit.status).toBe(403);
        expect(edit.body.error.code).toBe('client_not_allowed');
        expect((await limited.api.patch(`/findings/${ids.findingB}`, { title: 'x' })).body.error.code).toBe(
          'client_not_allowed',
        );
        expect((await limited.api.delete(`/reports/${ids.reportB}`)).body.error.code).toBe('client_not_allowed');
        expect((await limited.api.patch(`/projects/${ids.projectA}`, { name: 'Project A (renamed)' })).status).toBe(
          200,
        );
        expect((await limited.api.post('/projects', { clientId: ids.clientB, name: 'New under B' })).status).toBe(201);

        const form = new FormData();
        form.set('findingId', ids.findingB);
        form.set('file', new Blob([PNG]), 'shot.png');
        const upload = await limited.api.post('/evidence-images', form);
        expect(upload.status).toBe(403);
        expect(upload.body.error.code).toBe('client_not_allowed');
        const formA = new FormData();
        formA.set('findingId', ids.findingA1);
        formA.set('file', new Blob([PNG]), 'shot.png');
        expect((await limited.api.post('/evidence-images', formA)).status).toBe(201);

        const none = await createActor(app, { via, role: 'member', clientIds: [] });
        expect((await none.api.patch(`/projects/${ids.projectA}`, { name: 'y' })).body.error.code).toBe(
          'client_not_allowed',
        );
        // Library items belong to no client: the allow-list does not apply.
        const tpl = await none.api.post('/finding-library', { title: 'T', severity: 'low' });
        expect((await none.api.patch(`/finding-library/${tpl.body.id}`, { title: 'T2' })).status).toBe(200);
      });
    });

  describe('roles', () => {
    it('viewers read but cannot change; members cannot restore from the trash', async () => {
      const viewer = await createActor(app, { via, role: 'viewer' });
      expect((await viewer.api.get('/reports')).status).toBe(200);
      expect((await viewer.api.post('/clients', { name: 'x' })).body.error.code).toBe('forbidden');
      const member = await createActor(app, { via, role: 'member' });
      const client = await member.api.post('/clients', { name: 'Temp' });
      await member.allow(client.body.id);
      expect((await member.api.delete(`/clients/${client.body.id}`)).status).toBe(204);
      expect((await member.api.get('/trash')).status).toBe(403);
      expect((await member.api.post(`/clients/${client.body.id}/restore`)).status).toBe(403);
      expect((await admin.api.post(`/clients/${client.body.id}/restore`)).status).toBe(200);
    });
  });

  describe('bad input', () => {
    it('answers 400 naming the field, 404 for unknown routes and ids, never 500', async () => {
      const bad = await admin.api.post('/findings', {
        projectId: ids.projectA,
        title: '',
        severity: 'urgent',
        cves: ['not-a-cve'],
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual(
        expect.arrayContaining(['/title', '/severity', '/cves/0']),
      );
      expect((await admin.api.get('/findings/not-a-uuid')).status).toBe(400);
      expect((await admin.api.get('/nothing-here')).status).toBe(404);
      expect((await admin.api.get('/nothing-here')).body.error.code).toBe('not_found');
      expect(
        (await admin.api.post('/findings', '{"title":', { headers: { 'content-type': 'application/json' } })).status,
      ).toBe(400);
      expect((await admin.api.patch(`/findings/${ids.findingA1}`, {})).status).toBe(400);
      const noProject = await admin.api.post('/reports', { projectId: missing, title: 'x' });
      expect(noProject.status).toBe(422);
      expect(noProject.body.error).toMatchObject({ code: 'invalid_reference', details: [{ path: '/projectId' }] });
      const noStyle = await admin.api.post('/reports', { projectId: ids.projectA, title: 'x', styleId: missing });
      expect(noStyle.status).toBe(422);
      expect(noStyle.body.error).toMatchObject({ code: 'invalid_reference', details: [{ path: '/styleId' }] });
      expect((await admin.api.patch(`/reports/${ids.reportA2}`, { styleId: missing })).status).toBe(422);
      expect((await admin.api.get('/findings?per_page=0')).status).toBe(400);
      expect((await admin.api.get('/findings?page=abc')).status).toBe(400);
    });
  });
});
