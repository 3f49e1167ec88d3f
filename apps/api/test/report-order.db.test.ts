// A report reads in the order a client expects: findings worst first unless a person set an
// order, appendices after the findings, evidence images in a stable order, and severities that
// agree with their scores or say why not.
import PizZip from 'pizzip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngOfColour } from './support/png.ts';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let actor: Actor;
let projectId: string;

beforeAll(async () => {
  app = await startTestApp();
  actor = await createActor(app, { role: 'member' });
  const clientId = (await actor.api.post('/clients', { name: 'Order Ltd' })).body.id;
  await actor.allow(clientId);
  projectId = (await actor.api.post('/projects', { clientId, name: 'Order' })).body.id;
});
afterAll(async () => {
  await app?.stop();
});

const cvss = (vector: string, baseScore: number) => [{ version: '3.1', vector, baseScore }];
const CVSS_9_8 = cvss('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8);
const CVSS_7_5 = cvss('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', 7.5);
const CVSS_5_3 = cvss('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', 5.3);

async function newReport(title: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await actor.api.post('/reports', { projectId, title, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function titlesOf(reportId: string): Promise<string[]> {
  const res = await fetch(`${app.url}/rest/v1/reports/${reportId}/export-markdown`, {
    headers: { authorization: `Bearer ${actor.key}` },
  });
  const markdown = await res.text();
  return [...markdown.split('# Findings')[1]!.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
}

describe('finding order', () => {
  it('keeps findings worst first (severity, CVSS, title) after creation, import and change', async () => {
    const reportId = await newReport('Severity order');
    const add = (title: string, severity: string, score?: typeof CVSS_9_8) =>
      actor.api.post('/findings', { reportId, title, severity, ...(score ? { cvss: score } : {}) });
    await add('b low', 'low');
    await add('a medium', 'medium', CVSS_5_3);
    await add('z high', 'high', CVSS_7_5);
    await add('y high without score', 'high');
    const imported = await actor.api.post(`/reports/${reportId}/import-scan`, {
      findings: [
        { source: { scanner: 'nessus' }, ruleId: '990100', title: 'critical from a scan', severity: 'critical' },
        { source: { scanner: 'nessus' }, ruleId: '990101', title: 'info from a scan', severity: 'info' },
      ],
    });
    expect(imported.status).toBe(200);
    expect(await titlesOf(reportId)).toEqual([
      'critical from a scan',
      'z high',
      'y high without score',
      'a medium',
      'b low',
      'info from a scan',
    ]);
    // A change of severity moves the finding at once.
    const [low] = (await actor.api.get(`/findings?report_id=${reportId}&q=low`)).body;
    const patched = await actor.api.patch(`/findings/${low.id}`, { severity: 'critical' });
    expect(patched.status).toBe(200);
    expect((await titlesOf(reportId))[0]).toBe('b low');
  });

  it('takes a manual order in one call, refuses a stale list, and can go back to severity order', async () => {
    const reportId = await newReport('Manual order');
    const ids: string[] = [];
    for (const [title, severity] of [
      ['one', 'low'],
      ['two', 'high'],
      ['three', 'medium'],
    ])
      ids.push((await actor.api.post('/findings', { reportId, title, severity })).body.id);
    expect(await titlesOf(reportId)).toEqual(['two', 'three', 'one']);

    const report = (await actor.api.get(`/reports/${reportId}`)).body;
    const set = await actor.api.put(`/reports/${reportId}/finding-order`, {
      findingIds: [ids[0], ids[2], ids[1]],
      expectedUpdatedAt: report.updatedAt,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ reportId, findingOrder: 'manual', findingIds: [ids[0], ids[2], ids[1]] });
    expect(await titlesOf(reportId)).toEqual(['one', 'three', 'two']);
    expect((await actor.api.get(`/reports/${reportId}`)).body.findingOrder).toBe('manual');

    // Stale: the report changed since, or the list is not exactly its findings.
    const stale = await actor.api.put(`/reports/${reportId}/finding-order`, {
      findingIds: [ids[1], ids[0], ids[2]],
      expectedUpdatedAt: report.updatedAt,
    });
    expect(stale.status).toBe(409);
    const fourth = (await actor.api.post('/findings', { reportId, title: 'four', severity: 'critical' })).body.id;
    const missing = await actor.api.put(`/reports/${reportId}/finding-order`, { findingIds: ids });
    expect(missing.status).toBe(409);
    expect(missing.body.error.details).toContainEqual({
      path: '/findingIds',
      message: 'a finding of the report is missing',
      value: fourth,
    });
    // A manual report adds new findings at the end and keeps its order.
    expect(await titlesOf(reportId)).toEqual(['one', 'three', 'two', 'four']);

    const back = await actor.api.patch(`/reports/${reportId}`, { findingOrder: 'severity' });
    expect(back.status).toBe(200);
    expect(await titlesOf(reportId)).toEqual(['four', 'two', 'three', 'one']);
  });

  it('turns to manual order when a person moves one finding', async () => {
    const reportId = await newReport('Moved by hand');
    for (const [title, severity] of [
      ['low one', 'low'],
      ['high one', 'high'],
    ])
      await actor.api.post('/findings', { reportId, title, severity });
    const [first, second] = (await actor.api.get(`/report-findings?report_id=${reportId}`)).body;
    expect(await titlesOf(reportId)).toEqual(['high one', 'low one']);
    await actor.api.patch(`/report-findings/${first.id}`, { position: 5 });
    await actor.api.patch(`/report-findings/${second.id}`, { position: 0 });
    expect((await actor.api.get(`/reports/${reportId}`)).body.findingOrder).toBe('manual');
    expect(await titlesOf(reportId)).toEqual(['low one', 'high one']);
  });
});

describe('tabs before and after the findings', () => {
  it('places appendix tabs after the findings in Markdown and in the DOCX', async () => {
    const reportId = await newReport('Placement');
    await actor.api.post('/report-tabs', { reportId, title: 'Appendix: tools', content: 'Nmap.', placement: 'after' });
    await actor.api.post('/report-tabs', { reportId, title: 'Scope', content: 'The shop.' });
    await actor.api.post('/findings', { reportId, title: 'A finding', severity: 'low' });
    const markdown = await (
      await fetch(`${app.url}/rest/v1/reports/${reportId}/export-markdown`, {
        headers: { authorization: `Bearer ${actor.key}` },
      })
    ).text();
    expect(markdown).toContain('## Appendix: tools\n\n```yaml\nplacement: after\n```');
    const imported = await actor.api.post('/reports/import-markdown', { markdown, projectId });
    const tabs = (await actor.api.get(`/report-tabs?report_id=${imported.body.reportId}`)).body;
    expect(tabs.map((t: { title: string; placement: string }) => [t.title, t.placement])).toEqual([
      ['Appendix: tools', 'after'],
      ['Scope', 'before'],
    ]);

    const docx = Buffer.from(
      await (
        await fetch(`${app.url}/rest/v1/reports/${reportId}/export-docx`, {
          headers: { authorization: `Bearer ${actor.key}` },
        })
      ).arrayBuffer(),
    );
    const xml = new PizZip(docx).file('word/document.xml')!.asText();
    // Where each heading is written in the body (after the contents, which lists them too).
    const at = (text: string) => xml.lastIndexOf(`>${text}<`);
    expect(at('Scope')).toBeLessThan(at('1. A finding'));
    expect(at('1. A finding')).toBeLessThan(at('Appendix: tools'));
  });
});

describe('evidence order', () => {
  it('keeps images of one finding in the order they came, also when uploaded at once, through Markdown', async () => {
    const reportId = await newReport('Evidence order');
    const findingId = (await actor.api.post('/findings', { reportId, title: 'Pictures', severity: 'low' })).body.id;
    const upload = (n: number) => {
      const form = new FormData();
      form.append('findingId', findingId);
      form.append('caption', `shot ${n}`);
      form.append('file', new Blob([pngOfColour(n)], { type: 'image/png' }), `shot-${n}.png`);
      return actor.api.post('/evidence-images', form);
    };
    const results = await Promise.all([1, 2, 3, 4].map(upload));
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(201);
    const images = (await actor.api.get(`/evidence-images?finding_id=${findingId}`)).body as Array<{
      id: string;
      position: number;
    }>;
    expect(new Set(images.map((i) => i.position))).toEqual(new Set([0, 1, 2, 3]));

    // Move the last to the front: documents follow the positions.
    const last = images.find((i) => i.position === 3)!;
    await actor.api.patch(`/evidence-images/${last.id}`, { position: 0 });
    const exported = await (
      await fetch(`${app.url}/rest/v1/reports/${reportId}/export-markdown`, {
        headers: { authorization: `Bearer ${actor.key}` },
      })
    ).text();
    const imported = await actor.api.post('/reports/import-markdown', { markdown: exported, projectId });
    expect(imported.status).toBe(201);
    expect(imported.body.evidenceLinked).toBe(4);
    for (let i = 0; i < 3; i++) {
      const again = await (
        await fetch(`${app.url}/rest/v1/reports/${imported.body.reportId}/export-markdown`, {
          headers: { authorization: `Bearer ${actor.key}` },
        })
      ).text();
      expect(again.split('# Findings')[1]).toBe(exported.split('# Findings')[1]);
    }
  });
});

describe('severity and CVSS', () => {
  it('refuses a severity that contradicts the CVSS band unless it says why', async () => {
    const reportId = await newReport('Coherence');
    const contradiction = await actor.api.post('/findings', {
      reportId,
      title: 'High on a 5.3',
      severity: 'high',
      cvss: CVSS_5_3,
    });
    expect(contradiction.status).toBe(400);
    expect(contradiction.body.error.details[0].path).toBe('/severityReason');
    const explained = await actor.api.post('/findings', {
      reportId,
      title: 'High on a 5.3',
      severity: 'high',
      cvss: CVSS_5_3,
      severityReason: 'Reachable from the internet and holds customer data.',
    });
    expect(explained.status).toBe(201);
    // Changing the score later is checked against the severity too.
    const agreeing = (
      await actor.api.post('/findings', { reportId, title: 'Fine', severity: 'medium', cvss: CVSS_5_3 })
    ).body;
    expect((await actor.api.patch(`/findings/${agreeing.id}`, { cvss: CVSS_9_8 })).status).toBe(400);
    expect((await actor.api.patch(`/findings/${agreeing.id}`, { cvss: CVSS_9_8, severity: 'critical' })).status).toBe(
      200,
    );
  });

  it("keeps a scanner's own rating on import and says why it differs from the score", async () => {
    const reportId = await newReport('Scanner rating');
    const res = await actor.api.post(`/reports/${reportId}/import-scan`, {
      findings: [
        {
          source: { scanner: 'nessus' },
          ruleId: '990200',
          title: 'Rated high, scored 5.3',
          severity: 'high',
          severityRaw: 'High',
          cvss: CVSS_5_3,
        },
      ],
    });
    const finding = (await actor.api.get(`/findings/${res.body.findings[0].id}`)).body;
    expect(finding.severity).toBe('high');
    expect(finding.severityReason).toBe('Rated high by Nessus; the CVSS 3.1 base score 5.3 is medium.');

    // A German report reads the reason in German; the scanner's own word stays as it wrote it.
    const german = await newReport('Scannerbewertung', { language: 'de-DE' });
    const imported = await actor.api.post(`/reports/${german}/import-scan`, {
      findings: [
        {
          source: { scanner: 'nessus' },
          ruleId: '990201',
          title: 'Rated high, scored 5.3',
          severity: 'high',
          severityRaw: 'Serious',
          cvss: CVSS_5_3,
        },
      ],
    });
    const germanFinding = (await actor.api.get(`/findings/${imported.body.findings[0].id}`)).body;
    expect(germanFinding.severityReason).toBe(
      'Von Nessus als hoch eingestuft (Serious); der CVSS-3.1-Basiswert 5,3 entspricht mittel.',
    );
  });
});
