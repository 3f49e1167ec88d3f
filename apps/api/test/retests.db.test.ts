// Retests end to end over REST (issue 20), with real scanner files from fixtures/public: an
// original report from a Nessus scan and a Nuclei scan, a retest, re-scans made by editing those
// files, a person's review, a second round, the documents, and the access rules.
import PizZip from 'pizzip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import {
  NESSUS,
  NESSUS_RESCAN,
  NESSUS_SECOND_HOST,
  NUCLEI,
  NUCLEI_RESCAN,
  PNG,
  scanForm,
} from './support/retest-scans.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let member: Actor;
// Filled in by beforeAll.
const ids = {} as Record<'client' | 'newFinding' | 'original' | 'project' | 'retest' | 'round2' | 'smbResult', string>;
/** Finding ids of the original report by the scanner rule that created them. */
const byRule: Record<string, string> = {};

/** The fields of a retest result these tests read (OpenApiResponseCheck checks the whole answer). */
interface RetestResult {
  id: string;
  findingId: string;
  status: string;
  updatedAt: string;
  retestedAt: string | null;
  assets: Array<{ host?: string; port?: number | null; status: string; evidence: string }>;
}

async function resultsOf(reportId: string): Promise<Map<string, RetestResult>> {
  const res = await member.api.get(`/retest-results?report_id=${reportId}&per_page=100`);
  expect(res.status).toBe(200);
  return new Map((res.body as RetestResult[]).map((r) => [r.findingId, r]));
}

/** The visible text of a document.xml, one line per paragraph (empty ones left out). */
const paragraphs = (xml: string) =>
  xml
    .split('</w:p>')
    .map((p) => [...p.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]).join(''))
    .map((p) =>
      p
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&'),
    )
    .filter((p) => p !== '')
    .join('\n');
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const place = (a: { host?: string; port?: number | null }) => `${a.host}:${a.port ?? '-'}`;
const assetStatuses = (r: RetestResult) => Object.fromEntries(r.assets.map((a) => [place(a), a.status]));

beforeAll(async () => {
  app = await startTestApp();
  const creator = await createActor(app, { role: 'member' });
  ids.client = (await creator.api.post('/clients', { name: 'Retest Corp' })).body.id;
  member = await createActor(app, { role: 'member', clientIds: [ids.client] });
  ids.project = (
    await member.api.post('/projects', {
      clientId: ids.client,
      name: 'Internal network 2026',
      projectType: 'internal-network-test',
      startDate: '2026-11-02',
      endDate: '2026-11-06',
    })
  ).body.id;
  ids.original = (
    await member.api.post('/reports', { projectId: ids.project, title: 'Internal network test' })
  ).body.id;
  for (const [text, name] of [
    [NESSUS, 'scan.nessus'],
    [NUCLEI, 'nuclei.json'],
  ] as const) {
    const res = await member.api.post(`/reports/${ids.original}/import-scan`, scanForm(text, name));
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(res.body.retest).toBeUndefined();
    for (const f of res.body.findings as Array<{ ruleId: string; id: string }>) byRule[f.ruleId] = f.id;
  }
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

describe('a retest, decided by re-scans', () => {
  it('POST /reports/{id}/retests creates round 1 with the template tabs and every finding not retested', async () => {
    const before = await member.api.get(`/report-findings?report_id=${ids.original}&per_page=100`);
    const res = await member.api.post(`/reports/${ids.original}/retests`, {}, { headers: { 'Idempotency-Key': 'r1' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'retest',
      round: 1,
      retestOf: ids.original,
      originalReportId: ids.original,
      title: 'Retest: Internal network test',
      projectId: ids.project,
    });
    expect(res.headers.get('location')).toBe(`${app.url}/rest/v1/reports/${res.body.id}`);
    ids.retest = res.body.id;
    const replay = await member.api.post(
      `/reports/${ids.original}/retests`,
      {},
      { headers: { 'Idempotency-Key': 'r1' } },
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(ids.retest);

    // The project type's retest template (the library's retest-report) gives the tabs.
    const tabs = await member.api.get(`/report-tabs?report_id=${ids.retest}`);
    expect(tabs.body.map((t: { title: string }) => t.title)).toEqual(
      expect.arrayContaining(['Retest summary', 'Scope of the retest', 'Method']),
    );
    const attached = await member.api.get(`/report-findings?report_id=${ids.retest}&per_page=100`);
    expect(attached.body.map((a: { findingId: string }) => a.findingId)).toEqual(
      before.body.map((a: { findingId: string }) => a.findingId),
    );
    expect(attached.body.every((a: { retestStatus: string }) => a.retestStatus === 'not_retested')).toBe(true);
    const results = await resultsOf(ids.retest);
    expect(results.size).toBe(before.body.length);
    for (const r of results.values()) {
      expect(r).toMatchObject({ status: 'not_retested', statusSetBy: 'assets', notes: '', retestedAt: null });
      expect(r.assets.every((a) => a.status === 'not_retested' && a.evidence === '')).toBe(true);
    }
    // The original report's findings are still only the original's.
    expect((await member.api.get(`/reports/${ids.original}`)).body).toMatchObject({
      kind: 'report',
      round: 0,
      retestOf: null,
    });
  });

  it('a Nessus re-scan decides per asset: resolved, unresolved, not retested and new', async () => {
    const sshMac = byRule['71049']!;
    const findingBefore = await member.api.get(`/findings/${sshMac}`);
    const res = await member.api.post(`/reports/${ids.retest}/import-scan`, scanForm(NESSUS_RESCAN, 'rescan.nessus'), {
      headers: { 'Idempotency-Key': 'rescan-1' },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    expect(res.body.retest).toMatchObject({ round: 1, created: 1 });
    const decisions = new Map((res.body.retest.findings as Array<{ id: string }>).map((d) => [d.id, d]));

    const results = await resultsOf(ids.retest);
    // SSH weak MACs: gone from .100 (covered), .101 missing from the scan.
    expect(results.get(sshMac)!.status).toBe('partially_resolved');
    expect(assetStatuses(results.get(sshMac)!)).toEqual({
      '192.168.2.101:2222': 'not_retested',
      '192.168.2.101:22': 'not_retested',
      '192.168.2.100:22': 'resolved',
    });
    expect(decisions.get(sshMac)).toMatchObject({
      before: 'not_retested',
      after: 'partially_resolved',
      changed: true,
      assetsNotCovered: 2,
      assets: [
        expect.objectContaining({ host: '192.168.2.100', port: 22, after: 'resolved', reason: 'no_longer_reported' }),
      ],
    });
    // Apache: every rule gone from the only host and port it was on.
    const apache = results.get(byRule['50070']!)!;
    expect(apache.status).toBe('resolved');
    expect(assetStatuses(apache)).toEqual({ '192.168.2.100:80': 'resolved' });
    expect(apache.retestedAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // Outdated OpenSSH: still reported on .100 (with the new evidence), .101 not covered.
    const openssh = results.get(byRule['53841']!)!;
    expect(openssh.status).toBe('unresolved');
    expect(assetStatuses(openssh)).toMatchObject({
      '192.168.2.100:22': 'unresolved',
      '192.168.2.101:22': 'not_retested',
    });
    expect(openssh.assets.find((a) => a.host === '192.168.2.100')?.evidence).toContain('OpenSSH');
    // SMB signing, unchanged on its host: unresolved.
    expect(results.get(byRule['57608']!)!.status).toBe('unresolved');
    // The new rule: a finding of the project, attached to the retest only, `new` on its asset.
    const created = (res.body.findings as Array<{ ruleId: string; id: string; outcome: string }>).find(
      (f) => f.ruleId === '990001',
    )!;
    expect(created.outcome).toBe('created');
    ids.newFinding = created.id;
    expect(results.get(created.id)).toMatchObject({
      status: 'new',
      assets: [expect.objectContaining({ status: 'new', port: 23 })],
    });
    expect((await member.api.get(`/findings/${created.id}`)).body.reportIds).toEqual([ids.retest]);
    // The re-scan's evidence is on the retest result; the finding (and the original report) are unchanged.
    const { reportIds, ...findingAfter } = (await member.api.get(`/findings/${sshMac}`)).body;
    const { reportIds: before, ...unchanged } = findingBefore.body;
    expect(findingAfter).toEqual(unchanged);
    expect(new Set(reportIds)).toEqual(new Set(before));
    // Nuclei findings: this Nessus scan says nothing about them.
    expect(results.get(byRule['cookies-without-httponly']!)!.status).toBe('not_retested');
    expect(res.body.retest.notDecided).toBeGreaterThan(0);
  });

  it('a Nuclei re-scan decides the Nuclei findings; re-importing either file changes nothing', async () => {
    const res = await member.api.post(`/reports/${ids.retest}/import-scan`, scanForm(NUCLEI_RESCAN, 'rescan.json'));
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    const results = await resultsOf(ids.retest);
    const httpOnly = results.get(byRule['cookies-without-httponly']!)!;
    expect(httpOnly.status).toBe('partially_resolved');
    expect(assetStatuses(httpOnly)).toEqual({
      '127.0.0.1:10141': 'unresolved',
      '127.0.0.1:10142': 'resolved',
      '127.0.0.1:10082': 'unresolved',
    });
    expect(results.get(byRule['codeigniter-env']!)!.status).toBe('resolved');
    expect(results.get(byRule['cookies-without-secure']!)!.status).toBe('unresolved');

    const snapshot = await resultsOf(ids.retest);
    for (const [text, name] of [
      [NESSUS_RESCAN, 'rescan.nessus'],
      [NUCLEI_RESCAN, 'rescan.json'],
    ] as const) {
      const again = await member.api.post(`/reports/${ids.retest}/import-scan`, scanForm(text, name));
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ created: 0, retest: { changed: 0, created: 0 } });
    }
    expect(await resultsOf(ids.retest)).toEqual(snapshot);
    // An idempotent replay answers the first answer.
    const replay = await member.api.post(
      `/reports/${ids.retest}/import-scan`,
      scanForm(NESSUS_RESCAN, 'rescan.nessus'),
      {
        headers: { 'Idempotency-Key': 'rescan-1' },
      },
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.retest.created).toBe(1);
  });

  it('a second file covering another host adds to the decisions and flips nothing by absence', async () => {
    const res = await member.api.post(
      `/reports/${ids.retest}/import-scan`,
      scanForm(NESSUS_SECOND_HOST, 'host101.nessus'),
    );
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    const results = await resultsOf(ids.retest);
    expect(assetStatuses(results.get(byRule['71049']!)!)).toEqual({
      '192.168.2.101:2222': 'resolved',
      '192.168.2.101:22': 'resolved',
      '192.168.2.100:22': 'resolved',
    });
    expect(results.get(byRule['71049']!)!.status).toBe('resolved');
    // Outdated OpenSSH still reported on .101 too; .100 keeps its decision from the first file.
    expect(assetStatuses(results.get(byRule['53841']!)!)).toEqual({
      '192.168.2.101:2222': 'unresolved',
      '192.168.2.101:22': 'unresolved',
      '192.168.2.100:22': 'unresolved',
    });
    expect(results.get(byRule['50070']!)!.status).toBe('resolved');
    expect(results.get(ids.newFinding)!.status).toBe('new');
  });
});

describe('reviewing decisions', () => {
  it('a person sets a status with a note (kept by later imports), accepts a risk, and attaches evidence', async () => {
    const smb = (await resultsOf(ids.retest)).get(byRule['57608']!)!;
    const stale = await member.api.patch(`/retest-results/${smb.id}`, {
      status: 'resolved',
      expectedUpdatedAt: '2020-01-01T00:00:00.000Z',
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('conflict');
    const set = await member.api.patch(`/retest-results/${smb.id}`, {
      status: 'resolved',
      statusNote: 'Signing enforced by GPO on 19 November; the scanner policy predates it.',
      notes: 'Checked by hand with `smbclient --option="client signing=off"`: refused.',
      expectedUpdatedAt: smb.updatedAt,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ status: 'resolved', statusSetBy: 'person' });
    ids.smbResult = smb.id;

    const again = await member.api.post(`/reports/${ids.retest}/import-scan`, scanForm(NESSUS_RESCAN, 'rescan.nessus'));
    expect(again.status).toBe(200);
    const decision = (again.body.retest.findings as Array<{ id: string }>).find((d) => d.id === byRule['57608']);
    expect(decision).toMatchObject({ after: 'resolved', statusSetBy: 'person' });
    expect((await member.api.get(`/retest-results/${smb.id}`)).body.status).toBe('resolved');

    const isn = (await resultsOf(ids.retest)).get(byRule['10443']!)!;
    const accepted = await member.api.patch(`/retest-results/${isn.id}`, {
      riskAccepted: true,
      riskAcceptedNote: 'Accepted by the CISO until the host is replaced in Q2.',
    });
    expect(accepted.body).toMatchObject({ riskAccepted: true, status: isn.status, statusSetBy: 'assets' });

    const form = new FormData();
    form.set('retestResultId', smb.id);
    form.set('caption', 'smbclient refused without signing');
    form.set('file', new Blob([PNG]), 'smb.png');
    const upload = await member.api.post('/evidence-images', form);
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    expect(upload.body).toMatchObject({ retestResultId: smb.id, findingId: null, reportTabId: null });
    const listed = await member.api.get(`/evidence-images?retest_result_id=${smb.id}`);
    expect(listed.body.map((e: { id: string }) => e.id)).toEqual([upload.body.id]);
  });

  it('lists filter by retest status', async () => {
    const resolved = await member.api.get(`/findings?report_id=${ids.retest}&retest_status=resolved&per_page=100`);
    expect(resolved.status).toBe(200);
    const resolvedIds = resolved.body.map((f: { id: string }) => f.id);
    expect(resolvedIds).toEqual(expect.arrayContaining([byRule['50070'], byRule['71049'], byRule['57608']]));
    expect(resolvedIds).not.toContain(byRule['53841']);
    const partial = await member.api.get(`/report-findings?report_id=${ids.retest}&retest_status=partially_resolved`);
    expect(partial.body.map((f: { findingId: string }) => f.findingId)).toEqual([byRule['cookies-without-httponly']]);
    const fresh = await member.api.get(`/retest-results?report_id=${ids.retest}&status=new`);
    expect(fresh.body.map((r: { findingId: string }) => r.findingId)).toEqual([ids.newFinding]);
    // Without report_id: a finding with that status in any retest.
    const anyRetest = await member.api.get(`/findings?project_id=${ids.project}&retest_status=new`);
    expect(anyRetest.body.map((f: { id: string }) => f.id)).toEqual([ids.newFinding]);
  });
});

describe('documents of a retest', () => {
  it('Markdown carries every retest field and round-trips byte for byte', async () => {
    const md = await member.api.get(`/reports/${ids.retest}/export-markdown`);
    expect(md.status).toBe(200);
    expect(md.text).toContain(
      'retest:\n  round: 1\n  retestOf: Internal network test\n  original: Internal network test',
    );
    expect(md.text).toContain('### Retest\n');
    expect(md.text).toContain('status: partially_resolved');
    // Imported beside the retest it was exported from, the copy is linked to the same reports; its
    // original has a round 1 already, so the copy takes the next round and says so.
    const imported = await member.api.post('/reports/import-markdown', { markdown: md.text, projectId: ids.project });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    expect(imported.body.warnings).toContain(
      'The original report already has a retest round 1; this retest is round 2.',
    );
    const copy = await member.api.get(`/reports/${imported.body.reportId}`);
    expect(copy.body).toMatchObject({
      kind: 'retest',
      round: 2,
      retestOf: ids.original,
      originalReportId: ids.original,
    });
    const again = await member.api.get(`/reports/${imported.body.reportId}/export-markdown`);
    expect(again.text).toBe(md.text.replace('retest:\n  round: 1\n', 'retest:\n  round: 2\n'));
    // To the trash with the copy; it keeps its round there (a restore brings it back as it was).
    expect((await member.api.delete(`/reports/${imported.body.reportId}`)).status).toBe(204);
  });

  it('CSV has the retest columns', async () => {
    const csv = await member.api.get(`/reports/${ids.retest}/export-csv`);
    expect(csv.status).toBe(200);
    const header = csv.text.replace(/^\ufeff/, '').split('\r\n')[0]!;
    expect(header).toContain('Retest status');
    expect(header).toContain('Asset retest statuses');
    expect(csv.text).toContain('Partially resolved');
    expect(csv.text).toContain('127.0.0.1:10142: Resolved');
    expect(csv.text).toContain('192.168.2.100:22/tcp: Resolved');
  });

  it('DOCX (our layout) shows the summary table, the chart and each finding with its asset statuses', async () => {
    const res = await fetch(`${app.url}/rest/v1/reports/${ids.retest}/export-docx`, {
      headers: { authorization: `Bearer ${member.key}` },
    });
    expect(res.status).toBe(200);
    const zip = new PizZip(Buffer.from(await res.arrayBuffer()));
    const text = paragraphs(zip.file('word/document.xml')!.asText());
    expect(text).toContain('Retest results\nRound 1 of the retest of "Internal network test"');
    // The chart of resolved against open findings, described for screen readers.
    expect(zip.file('word/document.xml')!.asText()).toMatch(/descr="Resolved: \d+, Partially resolved: \d+, /);
    // The summary table: one row per finding (number, title, original severity, retest status, date).
    const title = async (id: string) => (await member.api.get(`/findings/${id}`)).body.title as string;
    const row = async (id: string, severity: string, status: string) =>
      expect(text).toMatch(
        new RegExp(`\\n\\d+\\n${escapeRegExp(await title(id))}\\n${severity}\\n${status}\\n\\w+ \\d+, \\d{4}\\n`),
      );
    await row(byRule['50070']!, '\\w+', 'Resolved');
    await row(byRule['53841']!, '\\w+', 'Unresolved');
    await row(byRule['cookies-without-httponly']!, '\\w+', 'Partially resolved');
    await row(ids.newFinding, 'Medium', 'New');
    await row(byRule['57608']!, '\\w+', 'Resolved'); // set by a person...
    expect(text).toContain('Set by the tester: Signing enforced by GPO on 19 November');
    expect(text).toContain('Risk accepted by the client: Accepted by the CISO until the host is replaced in Q2.');
    // Per asset: the cookie is fixed on one port of the host and open on the others.
    const cookie = await title(byRule['cookies-without-httponly']!);
    // The finding's heading (the last of its mentions: the contents list it first).
    const start = [...text.matchAll(new RegExp(`\\n\\d+\\. ${escapeRegExp(cookie)}\\n`, 'g'))].at(-1)!.index;
    const number = Number(/^\n(\d+)\./.exec(text.slice(start))![1]);
    const end = text.indexOf(`\n${number + 1}. `, start + 1);
    const section = text.slice(start + 1, end < 0 ? undefined : end);
    expect(section).toMatch(/Retest\nRetest status\nPartially resolved\nRetest date\n/);
    expect(section).toMatch(/Status per asset\nHost\nURL\nRetest status\n/);
    expect(section).toMatch(/\n127\.0\.0\.1:10142\n(?:[^\n]+\n)?Resolved\n/);
    expect(section).toMatch(/\n127\.0\.0\.1:10141\n(?:[^\n]+\n)?Unresolved\n/);
    expect(text).toContain('smbclient refused without signing'); // the retest evidence image's caption
  });
});

describe('a second round', () => {
  it('carries every finding of round 1 over with a fresh result, and lists the rounds from the original', async () => {
    // Round 3: the copy imported above, now in the trash, holds round 2.
    const res = await member.api.post(`/reports/${ids.retest}/retests`, {});
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'retest', round: 3, retestOf: ids.retest, originalReportId: ids.original });
    expect(res.body.title).toBe('Retest 3: Internal network test');
    ids.round2 = res.body.id;
    const results = await resultsOf(ids.round2);
    expect(results.size).toBe((await resultsOf(ids.retest)).size);
    expect([...results.values()].every((r) => r.status === 'not_retested')).toBe(true);
    expect(results.get(ids.newFinding)!.status).toBe('not_retested');
    const res2 = await member.api.post(`/reports/${ids.round2}/import-scan`, scanForm(NESSUS_RESCAN, 'rescan.nessus'));
    expect(res2.body.retest).toMatchObject({ round: 3, created: 0 });
    const after = await resultsOf(ids.round2);
    expect(after.get(ids.newFinding)!.status).toBe('unresolved');
    expect(after.get(byRule['50070']!)!.status).toBe('resolved');

    for (const from of [ids.original, ids.retest, ids.round2]) {
      const rounds = await member.api.get(`/reports/${from}/retests`);
      expect(rounds.status).toBe(200);
      expect(rounds.headers.get('x-total-count')).toBe('2');
      expect(rounds.body.map((r: { round: number; id: string }) => [r.round, r.id])).toEqual([
        [1, ids.retest],
        [3, ids.round2],
      ]);
    }
  });
});

describe('access to retests is that of reports', () => {
  it('read-only keys, keys without the client, externals without an edit share of the project are refused', async () => {
    const readOnly = await createActor(app, { role: 'member', scope: 'read-only', clientIds: [ids.client] });
    const create = await readOnly.api.post(`/reports/${ids.original}/retests`, {});
    expect(create.status).toBe(403);
    expect(create.body.error.code).toBe('read_only_key');
    expect((await readOnly.api.get(`/reports/${ids.original}/retests`)).status).toBe(200);
    expect((await readOnly.api.patch(`/retest-results/${ids.smbResult}`, { notes: 'x' })).body.error.code).toBe(
      'read_only_key',
    );
    const notAllowed = await createActor(app, { role: 'member' });
    expect((await notAllowed.api.post(`/reports/${ids.original}/retests`, {})).body.error.code).toBe(
      'client_not_allowed',
    );
    const import403 = await notAllowed.api.post(
      `/reports/${ids.retest}/import-scan`,
      scanForm(NESSUS_RESCAN, 'x.nessus'),
    );
    expect(import403.status).toBe(403);

    const admin = await createActor(app, { role: 'admin', clientIds: [ids.client] });
    const external = await createActor(app, { role: 'external', clientIds: [ids.client] });
    expect((await external.api.post(`/reports/${ids.original}/retests`, {})).status).toBe(404);
    expect((await external.api.get(`/reports/${ids.original}/retests`)).status).toBe(404);
    expect((await external.api.get(`/retest-results/${ids.smbResult}`)).status).toBe(404);
    await admin.api.post(`/reports/${ids.original}/shares`, { userId: external.user.id, access: 'edit' });
    const reportOnly = await external.api.post(`/reports/${ids.original}/retests`, {});
    expect(reportOnly.status).toBe(403);
    expect(reportOnly.body.error.code).toBe('forbidden');
    // The rounds they cannot see are not listed.
    expect((await external.api.get(`/reports/${ids.original}/retests`)).body).toEqual([]);
    await admin.api.post(`/projects/${ids.project}/shares`, { userId: external.user.id, access: 'view' });
    expect((await external.api.post(`/reports/${ids.original}/retests`, {})).status).toBe(403);
    expect((await external.api.get(`/retest-results/${ids.smbResult}`)).status).toBe(200);
    await admin.api.post(`/projects/${ids.project}/shares`, { userId: external.user.id, access: 'edit' });
    const allowed = await external.api.post(`/reports/${ids.original}/retests`, {});
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(201);
    // Externals never see the library: their retest has the default tabs.
    const tabs = await external.api.get(`/report-tabs?report_id=${allowed.body.id}`);
    expect(tabs.body.map((t: { title: string }) => t.title)).toEqual([
      'Retest summary',
      'Scope of the retest',
      'Method',
    ]);
  });
});

describe("a German report's retest", () => {
  it('gets the German retest report template and German documents', async () => {
    const original = await member.api.post('/reports', {
      projectId: ids.project,
      title: 'Interner Netzwerktest',
      language: 'de',
    });
    expect(original.status, JSON.stringify(original.body)).toBe(201);
    const imported = await member.api.post(`/reports/${original.body.id}/import-scan`, scanForm(NESSUS, 'scan.nessus'));
    expect(imported.status).toBe(200);
    const retest = await member.api.post(`/reports/${original.body.id}/retests`, {});
    expect(retest.status).toBe(201);
    expect(retest.body.language).toBe('de');
    // The project type names the library's retest-report; its German version (retest-report-de) gives the tabs.
    const tabs = await member.api.get(`/report-tabs?report_id=${retest.body.id}`);
    expect(tabs.body.map((t: { title: string }) => t.title)).toEqual([
      'Vertraulichkeitshinweis',
      'Zusammenfassung des Retests',
      'Umfang des Retests',
      'Vorgehensweise',
      'Risikobewertung',
      'Haftungsausschluss und Einschränkungen',
    ]);
    await member.api.post(`/reports/${retest.body.id}/import-scan`, scanForm(NESSUS_RESCAN, 'rescan.nessus'));
    const res = await fetch(`${app.url}/rest/v1/reports/${retest.body.id}/export-docx`, {
      headers: { authorization: `Bearer ${member.key}` },
    });
    const text = paragraphs(new PizZip(Buffer.from(await res.arrayBuffer())).file('word/document.xml')!.asText());
    expect(text).toContain('Ergebnisse des Retests\nRunde 1 des Retests zu „Interner Netzwerktest“');
    expect(text).toMatch(/Ursprünglicher Schweregrad\nStatus im Retest\nDatum des Retests\n/);
    for (const status of ['Behoben', 'Teilweise behoben', 'Nicht behoben', 'Neu'])
      expect(text).toContain(`\n${status}\n`);
  });
});
