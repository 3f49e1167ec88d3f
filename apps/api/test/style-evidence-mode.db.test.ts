import PizZip from 'pizzip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { down, up } from '../../../migrations/tenant/20261126020000_style_evidence_mode.ts';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

/**
 * A report style's `evidenceMode` (excerpt, full, appendix, none): stored, validated, read by the
 * DOCX export; and the tenant migration that added it keeps library styles' `edited` as it was.
 */

let app: TestApp;
let member: Actor;
let reportId: string;

const page = Array.from({ length: 300 }, (_, i) =>
  i === 150 ? '<p>Results for PAYLOAD-42</p>' : `<p>filler line ${i}</p>`,
).join('\r\n');
const EVIDENCE =
  'Request:\nGET /search?q=PAYLOAD-42 HTTP/1.1\r\nHost: shop.example\r\n\r\n\n' +
  `Response:\nHTTP/1.1 200 OK\r\nServer: nginx\r\n\r\n${page}`;

beforeAll(async () => {
  app = await startTestApp();
  const creator = await createActor(app, { role: 'member' });
  const client = (await creator.api.post('/clients', { name: 'Evidence Corp' })).body.id;
  member = await createActor(app, { role: 'member', clientIds: [client] });
  const project = (await member.api.post('/projects', { clientId: client, name: 'Evidence' })).body.id;
  reportId = (await member.api.post('/reports', { projectId: project, title: 'Evidence modes' })).body.id;
  const created = await member.api.post('/findings', {
    reportId,
    title: 'Cross-site scripting (reflected)',
    severity: 'high',
    affectedAssets: [{ host: 'shop.example', url: 'https://shop.example/search', evidence: EVIDENCE }],
  });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await app?.stop();
});

async function documentText(): Promise<string> {
  const res = await fetch(`${app.url}/rest/v1/reports/${reportId}/export-docx`, {
    headers: { authorization: `Bearer ${member.key}` },
  });
  expect(res.status).toBe(200);
  const xml = new PizZip(Buffer.from(await res.arrayBuffer())).file('word/document.xml')!.asText();
  return [...xml.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)]
    .map((m) =>
      m[1]!
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&'),
    )
    .join('\n');
}

describe('style evidenceMode', () => {
  it('is excerpt unless set, takes the four modes and refuses others', async () => {
    const plain = await member.api.post('/style-library', { name: 'Plain' });
    expect(plain.status).toBe(201);
    expect(plain.body.evidenceMode).toBe('excerpt');
    const appendix = await member.api.post('/style-library', { name: 'With appendix', evidenceMode: 'appendix' });
    expect(appendix.body.evidenceMode).toBe('appendix');
    const patched = await member.api.patch(`/style-library/${plain.body.id}`, { evidenceMode: 'none' });
    expect(patched.status).toBe(200);
    expect((await member.api.get(`/style-library/${plain.body.id}`)).body.evidenceMode).toBe('none');
    const bad = await member.api.patch(`/style-library/${plain.body.id}`, { evidenceMode: 'everything' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
  });

  it('decides how the DOCX export shows the scanner evidence of the report style', async () => {
    const shows = async (mode: string | null) => {
      let styleId: string | null = null;
      if (mode !== null)
        styleId = (await member.api.post('/style-library', { name: `Mode ${mode}`, evidenceMode: mode })).body.id;
      expect((await member.api.patch(`/reports/${reportId}`, { styleId })).status).toBe(200);
      return documentText();
    };
    const byDefault = await shows(null);
    expect(byDefault).toContain('<p>Results for PAYLOAD-42</p>');
    expect(byDefault).not.toContain('filler line 10');
    expect(byDefault).toContain('[… 150 lines left out]');
    const full = await shows('full');
    expect(full).toContain('filler line 10');
    const appendix = await shows('appendix');
    expect(appendix).toContain('Full evidence: E1 in “Scanner evidence”');
    expect(appendix).toContain('filler line 10');
    const none = await shows('none');
    expect(none).not.toContain('PAYLOAD-42');
    expect(none).not.toContain('Evidence per asset');
  });
});

describe('the evidence mode migration', () => {
  it('keeps library styles unedited and edited ones edited, down and up again', async () => {
    const tenant = app.dbs.tenant;
    const globals = await tenant('report_styles').whereNotNull('global_key').orderBy('global_key').select('id');
    expect(globals.length).toBeGreaterThanOrEqual(2);
    const [kept, edited] = [globals[0]!.id as string, globals[1]!.id as string];
    await tenant('report_styles').where({ id: edited }).update({ header_text: 'Our own header' });
    const state = () =>
      tenant('report_styles').whereIn('id', [kept, edited]).orderBy('id').select('id', 'edited', 'content_hash');
    const before = await state();
    expect(Object.fromEntries(before.map((r) => [r.id, r.edited]))).toEqual({ [kept]: false, [edited]: true });

    await tenant.transaction(async (trx) => {
      await down(trx);
      const rolledBack = await trx('report_styles').whereIn('id', [kept, edited]).select('id', 'edited');
      expect(Object.fromEntries(rolledBack.map((r) => [r.id, r.edited]))).toEqual({ [kept]: false, [edited]: true });
      await up(trx);
    });
    const after = await state();
    expect(after).toEqual(before);
    const row = await tenant('report_styles').where({ id: kept }).first('evidence_mode');
    expect(row.evidence_mode).toBe('excerpt');
    // The mode is content: changing it marks a library style edited.
    await tenant('report_styles').where({ id: kept }).update({ evidence_mode: 'full' });
    expect((await tenant('report_styles').where({ id: kept }).first('edited')).edited).toBe(true);
  });
});
