import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, VIAS, type Actor, type Via } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

// Rules decided where the specification is silent (DESIGN "Access"), each closing a side door
// found from outside: externals and the library, externals and the trash, replays under current
// access, additions to a report as edits of that report, and idempotency on every creating POST.

// Run with API keys and with workspace sessions (the browser's way in); the allow-list rules apply to keys only.
describe.each(VIAS)('through %s', (via: Via) => {
  let app: TestApp;
  let admin: Actor;
  let external: Actor;
  // Filled in by beforeAll.
  const ids = {} as Record<
    | 'both'
    | 'clientA'
    | 'clientB'
    | 'hidden'
    | 'onlyShared'
    | 'projectA'
    | 'projectB'
    | 'reportB'
    | 'shared'
    | 'style'
    | 'template',
    string
  >;
  const PNG = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'base64',
  );

  function png(fields: Record<string, string>): FormData {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    form.set('file', new Blob([PNG]), 'shot.png');
    return form;
  }

  beforeAll(async () => {
    app = await startTestApp();
    const creator = await createActor(app, { via, role: 'admin' });
    ids.clientA = (await creator.api.post('/clients', { name: 'Client A' })).body.id;
    ids.clientB = (await creator.api.post('/clients', { name: 'Client B' })).body.id;
    admin = await createActor(app, { via, role: 'admin', clientIds: [ids.clientA, ids.clientB] });
    external = await createActor(app, { via, role: 'external', clientIds: [ids.clientA, ids.clientB] });
    const c = async (path: string, body: object) => {
      const res = await admin.api.post(path, body);
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
      return res.body.id as string;
    };
    ids.projectA = await c('/projects', { clientId: ids.clientA, name: 'Project A' });
    ids.projectB = await c('/projects', { clientId: ids.clientB, name: 'Project B' });
    ids.shared = await c('/reports', { projectId: ids.projectA, title: 'Shared report' });
    ids.hidden = await c('/reports', { projectId: ids.projectA, title: 'Hidden report' });
    ids.reportB = await c('/reports', { projectId: ids.projectB, title: 'Report B' });
    ids.both = await c('/findings', { reportId: ids.shared, title: 'In both reports', severity: 'high' });
    await c('/report-findings', { reportId: ids.hidden, findingId: ids.both });
    ids.onlyShared = await c('/findings', {
      reportId: ids.shared,
      title: 'Only in the shared report',
      severity: 'low',
    });
    ids.template = await c('/report-templates', {
      name: 'Secret template',
      tabs: [{ title: 'Internal methodology', content: 'Our secret sauce.' }],
    });
    ids.style = await c('/style-library', { name: 'House style' });
    await c('/finding-library', {
      title: 'Curated git text',
      severity: 'medium',
      scannerRules: ['nuclei:git-config'],
      description: 'Library text.',
    });
    const share = await admin.api.post(`/reports/${ids.shared}/shares`, { userId: external.user.id, access: 'edit' });
    expect(share.status).toBe(200);
  });
  afterAll(async () => {
    await app?.stop();
  });

  describe('external collaborators with edit on a shared report', () => {
    it('edit what is in it, but cannot trash the shared report or its project', async () => {
      expect((await external.api.patch(`/reports/${ids.shared}`, { title: 'Shared report (reviewed)' })).status).toBe(
        200,
      );
      const trash = await external.api.delete(`/reports/${ids.shared}`);
      expect(trash.status).toBe(403);
      expect(trash.body.error.code).toBe('forbidden');
      expect((await admin.api.get(`/reports/${ids.shared}`)).status).toBe(200);
    });

    it("see only the reports they can see in a finding's reportIds", async () => {
      expect((await external.api.get(`/findings/${ids.both}`)).body.reportIds).toEqual([ids.shared]);
      expect((await admin.api.get(`/findings/${ids.both}`)).body.reportIds).toEqual(
        expect.arrayContaining([ids.shared, ids.hidden]),
      );
    });

    it(
      'cannot delete a finding that also sits in a report they cannot see, but can ' + 'delete one that does not',
      async () => {
        const refused = await external.api.delete(`/findings/${ids.both}`);
        expect(refused.status).toBe(403);
        expect((await admin.api.get(`/findings/${ids.both}`)).status).toBe(200);
        expect((await external.api.delete(`/findings/${ids.onlyShared}`)).status).toBe(204);
      },
    );

    it('never read library text: a templateId or styleId answers like a missing one', async () => {
      const project = await admin.api.post('/projects', { clientId: ids.clientA, name: 'Shared project' });
      await admin.api.post(`/projects/${project.body.id}/shares`, { userId: external.user.id, access: 'edit' });
      const withTemplate = await external.api.post('/reports', {
        projectId: project.body.id,
        title: 'x',
        templateId: ids.template,
      });
      const withMissing = await external.api.post('/reports', {
        projectId: project.body.id,
        title: 'x',
        templateId: '00000000-0000-4000-8000-000000000000',
      });
      expect(withTemplate.status).toBe(422);
      expect(withTemplate.body.error.code).toBe('invalid_reference');
      expect(withMissing.status).toBe(422);
      expect(withTemplate.body.error.details).toEqual(withMissing.body.error.details);
      const withStyle = await external.api.post('/reports', {
        projectId: project.body.id,
        title: 'x',
        styleId: ids.style,
      });
      expect(withStyle.status).toBe(422);
      expect(withStyle.body.error.details).toEqual([{ path: '/styleId', message: expect.any(String) }]);
      // Members get the template's tabs as before.
      const member = await admin.api.post('/reports', {
        projectId: ids.projectA,
        title: 'From template',
        templateId: ids.template,
      });
      expect(member.status).toBe(201);
      expect((await admin.api.get(`/report-tabs?report_id=${member.body.id}`)).body[0].content).toBe(
        'Our secret sauce.',
      );
    });

    it('get no library text from a scan import', async () => {
      const record = JSON.stringify({
        'template-id': 'git-config',
        info: { name: 'Git config', severity: 'medium' },
        host: 'a.example',
        'matched-at': 'https://a.example/.git/config',
      });
      const form = new FormData();
      form.set('file', new Blob([record]), 'scan.jsonl');
      const res = await external.api.post(`/reports/${ids.shared}/import-scan`, form);
      expect(res.status).toBe(200);
      expect(res.body.findings[0].template).toBeNull();
      const finding = (await external.api.get(`/findings/${res.body.findings[0].id}`)).body;
      expect(finding.title).toBe('Git config');
      expect(finding.description).not.toContain('Library text');
    });

    it('replaying an Idempotency-Key after the share ended answers 404, not the stored row', async () => {
      const key = { 'Idempotency-Key': 'external-tab-1' };
      const first = await external.api.post(
        '/report-tabs',
        { reportId: ids.shared, title: 'Client notes' },
        { headers: key },
      );
      expect(first.status).toBe(201);
      const replay = await external.api.post(
        '/report-tabs',
        { reportId: ids.shared, title: 'Client notes' },
        { headers: key },
      );
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.id).toBe(first.body.id);
      expect((await admin.api.delete(`/reports/${ids.shared}/shares/${external.user.id}`)).status).toBe(204);
      const afterShare = await external.api.post(
        '/report-tabs',
        { reportId: ids.shared, title: 'Client notes' },
        { headers: key },
      );
      expect(afterShare.status).toBe(404);
      expect(JSON.stringify(afterShare.body)).not.toContain('Client notes');
      await admin.api.post(`/reports/${ids.shared}/shares`, { userId: external.user.id, access: 'edit' });
    });
  });

  if (via === 'apiKey')
    describe('adding to an existing report edits that report: the allow-list applies', () => {
      it(
        'refuses tabs, links, report findings, findings with reportId and evidence for a ' + 'client not on the list',
        async () => {
          const onlyA = await createActor(app, { via, role: 'member', clientIds: [ids.clientA] });
          const findingB = (await admin.api.post('/findings', { projectId: ids.projectB, title: 'B', severity: 'low' }))
            .body.id;
          const tabB = (await admin.api.post('/report-tabs', { reportId: ids.reportB, title: 'Tab' })).body.id;
          const attempts = [
            await onlyA.api.post('/report-tabs', { reportId: ids.reportB, title: 'x' }),
            await onlyA.api.post('/report-links', { reportId: ids.reportB, title: 'x', url: 'https://x.example' }),
            await onlyA.api.post('/report-findings', { reportId: ids.reportB, findingId: findingB }),
            await onlyA.api.post('/findings', { reportId: ids.reportB, title: 'x', severity: 'low' }),
            await onlyA.api.post('/evidence-images', png({ reportTabId: tabB })),
          ];
          for (const res of attempts) expect([res.status, res.body.error?.code]).toEqual([403, 'client_not_allowed']);
          // Plain creates are not restricted by the list (SPEC "Authentication").
          expect(
            (await onlyA.api.post('/findings', { projectId: ids.projectB, title: 'plain', severity: 'low' })).status,
          ).toBe(201);
          expect((await onlyA.api.post('/reports', { projectId: ids.projectB, title: 'plain' })).status).toBe(201);
        },
      );
    });

  describe('Idempotency-Key on every creating POST', () => {
    it.each([
      ['/clients', (v: string) => ({ name: `Idempotent client ${v}` })],
      ['/projects', (v: string) => ({ clientId: ids.clientA, name: `Idempotent project ${v}` })],
      ['/reports', (v: string) => ({ projectId: ids.projectA, title: `Idempotent report ${v}` })],
      ['/report-tabs', (v: string) => ({ reportId: ids.hidden, title: `Idempotent tab ${v}` })],
      [
        '/report-links',
        (v: string) => ({ reportId: ids.hidden, title: `Idempotent link ${v}`, url: 'https://x.example' }),
      ],
      ['/finding-library', (v: string) => ({ title: `Idempotent template ${v}`, severity: 'low' })],
      ['/style-library', (v: string) => ({ name: `Idempotent style ${v}` })],
      ['/report-templates', (v: string) => ({ name: `Idempotent report template ${v}` })],
    ])('%s replays the first answer and creates one row', async (path, bodyOf) => {
      const body = () => bodyOf('1');
      const headers = { 'Idempotency-Key': `key-${path}` };
      const first = await admin.api.post(path, body(), { headers });
      const second = await admin.api.post(path, body(), { headers });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(second.body).toEqual(first.body);
      const reused = await admin.api.post(path, bodyOf('2'), { headers });
      expect([reused.status, reused.body.error?.code]).toEqual([422, 'idempotency_key_reused']);
    });

    it('makes evidence uploads and shares safe to retry', async () => {
      const headers = { 'Idempotency-Key': 'upload-1' };
      const first = await admin.api.post('/evidence-images', png({ findingId: ids.both }), { headers });
      const second = await admin.api.post('/evidence-images', png({ findingId: ids.both }), { headers });
      expect(first.status).toBe(201);
      expect(second.body.id).toBe(first.body.id);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect((await admin.api.get(`/evidence-images?finding_id=${ids.both}`)).headers.get('x-total-count')).toBe('1');
      const share = { 'Idempotency-Key': 'share-1' };
      const s1 = await admin.api.post(
        `/reports/${ids.hidden}/shares`,
        { userId: external.user.id, access: 'view' },
        { headers: share },
      );
      const s2 = await admin.api.post(
        `/reports/${ids.hidden}/shares`,
        { userId: external.user.id, access: 'view' },
        { headers: share },
      );
      expect(s1.status).toBe(200);
      expect(s2.headers.get('idempotent-replayed')).toBe('true');
      await admin.api.delete(`/reports/${ids.hidden}/shares/${external.user.id}`);
    });

    it.each([
      ['empty', ''],
      ['too long', 'k'.repeat(256)],
      ['with a space', 'my key'],
      ['non-ASCII', 'schlüssel'],
    ])('answers 400 invalid_idempotency_key for a key that is %s', async (_label, key) => {
      const res = await admin.api.post('/clients', { name: 'Never created' }, { headers: { 'Idempotency-Key': key } });
      expect([res.status, res.body.error?.code]).toEqual([400, 'invalid_idempotency_key']);
    });
  });

  if (via === 'apiKey')
    describe('reads that are not restricted by the allow-list', () => {
      it("lets an administrator's read-only key list the trash and shares, refuses members the trash", async () => {
        const readOnly = await createActor(app, { via, role: 'admin', scope: 'read-only', clientIds: [] });
        expect((await readOnly.api.get('/trash')).status).toBe(200);
        expect((await readOnly.api.get(`/reports/${ids.shared}/shares`)).status).toBe(200);
        const member = await createActor(app, { via, role: 'member', clientIds: [] });
        expect((await member.api.get('/trash')).status).toBe(403);
        expect((await member.api.get(`/reports/${ids.shared}/shares`)).status).toBe(200);
        expect((await external.api.get(`/reports/${ids.shared}/shares`)).status).toBe(403);
      });
    });

  describe('writes that change nothing', () => {
    it('a PATCH with the values a row has keeps its updatedAt', async () => {
      const before = (await admin.api.get(`/reports/${ids.hidden}`)).body;
      const same = await admin.api.patch(`/reports/${ids.hidden}`, { title: before.title, status: before.status });
      expect(same.body.updatedAt).toBe(before.updatedAt);
      const changed = await admin.api.patch(`/reports/${ids.hidden}`, { title: `${before.title}!` });
      expect(changed.body.updatedAt > before.updatedAt).toBe(true);
    });
  });

  describe('races', () => {
    it('an evidence upload racing the deletion of its finding never answers 500 and leaves no orphan', async () => {
      for (let i = 0; i < 8; i++) {
        const finding = (
          await admin.api.post('/findings', { projectId: ids.projectA, title: `race ${i}`, severity: 'low' })
        ).body.id;
        const [upload, deletion] = await Promise.all([
          admin.api.post('/evidence-images', png({ findingId: finding })),
          admin.api.delete(`/findings/${finding}`),
        ]);
        expect(deletion.status).toBe(204);
        expect([201, 422]).toContain(upload.status);
        expect(
          Number((await app.dbs.tenant('evidence_images').where({ finding_id: finding }).count({ n: '*' }))[0]!.n),
        ).toBe(0);
      }
    });
  });
});
