// Retest documents read back as a client gets them (issue 20): an original report from a real
// Nessus scan and a real Nuclei scan, a retest decided by re-scans edited from those files (one
// finding gone from one host but still on others, one gone everywhere, one host missing from the
// scan, one new finding), then the PDF (LibreOffice, read with pdftotext) of our layout and of the
// shipped example Word template, and of a second round.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { NESSUS, NESSUS_RESCAN, NUCLEI, NUCLEI_RESCAN, scanForm } from './support/retest-scans.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const EXAMPLE_TEMPLATE = readFileSync(
  path.resolve(
    path.dirname(fileURLToPath(import.meta.url)),
    '../../../library/report-styles/word-template-example.docx',
  ),
);

let app: TestApp;
let member: Actor;
// Filled in by beforeAll.
const ids = {} as Record<'client' | 'original' | 'project' | 'retest', string>;
/** Titles of the original findings by the scanner rule that created them. */
const titleOf: Record<string, string> = {};

/** pdftotext's crop box of an A4 page (points) between its header and its footer. */
const A4_BODY = ['-x', '0', '-y', '56', '-W', '600', '-H', '730'];

/** The PDF of a report, as its text (pdftotext, reading order; pages separated by form feeds). */
async function pdfText(reportId: string): Promise<string> {
  const res = await fetch(`${app.url}/rest/v1/reports/${reportId}/export-pdf`, {
    headers: { authorization: `Bearer ${member.key}` },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  const pdf = Buffer.from(await res.arrayBuffer());
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  // Why the crop: the A4 page without its header and footer, so that text a page break splits reads on
  // as the client reads it.
  const child = promisify(execFile)('pdftotext', ['-enc', 'UTF-8', ...A4_BODY, '-', '-'], {
    maxBuffer: 64 * 1024 * 1024,
  });
  child.child.stdin!.end(pdf);
  return (await child).stdout;
}

/** Whole words and spaces as pdftotext gives them: every run of white space as one space. */
const squash = (text: string) => text.replace(/\s+/g, ' ');

/** A finding's section, from its numbered heading (its last mention: the contents list it first) to the next one. */
function findingPart(text: string, title: string): string {
  const flat = squash(text);
  const escaped = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const heading = [...flat.matchAll(new RegExp(`(\\d+)\\. ${escaped} `, 'g'))].at(-1);
  expect(heading, `the finding "${title}" is in the PDF`).toBeDefined();
  const end = flat.indexOf(` ${Number(heading![1]) + 1}. `, heading!.index + 1);
  return flat.slice(heading!.index, end < 0 ? undefined : end);
}

beforeAll(async () => {
  app = await startTestApp();
  const creator = await createActor(app, { role: 'member' });
  ids.client = (await creator.api.post('/clients', { name: 'Retest Documents Corp' })).body.id;
  member = await createActor(app, { role: 'member', clientIds: [ids.client] });
  ids.project = (
    await member.api.post('/projects', {
      clientId: ids.client,
      name: 'Internal network 2026',
      projectType: 'internal-network-test',
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
    expect(res.status).toBe(200);
    for (const f of res.body.findings as Array<{ ruleId: string; title: string }>) titleOf[f.ruleId] = f.title;
  }
  ids.retest = (await member.api.post(`/reports/${ids.original}/retests`, {})).body.id;
  for (const [text, name] of [
    [NESSUS_RESCAN, 'rescan.nessus'],
    [NUCLEI_RESCAN, 'rescan.json'],
  ] as const) {
    const res = await member.api.post(`/reports/${ids.retest}/import-scan`, scanForm(text, name));
    expect(res.status).toBe(200);
    for (const f of res.body.findings as Array<{ ruleId: string; title: string }>) titleOf[f.ruleId] ??= f.title;
  }
}, 180_000);
afterAll(async () => {
  await app?.stop();
});

describe('the PDF of a retest', () => {
  it('in our layout: the results table, the chart and each finding with its status per asset', {
    timeout: 180_000,
  }, async () => {
    const text = await pdfText(ids.retest);
    const flat = squash(text);
    expect(flat).toContain('Retest results Round 1 of the retest of "Internal network test"');
    expect(flat).toMatch(/Original severity Retest status Retest date/);
    // Gone everywhere: Apache on .100:80.
    expect(findingPart(text, titleOf['50070']!)).toMatch(/Retest status Resolved Retest date/);
    // Gone from .100, .101 missing from the scan: partially resolved, with each host's status.
    const ssh = findingPart(text, titleOf['71049']!);
    expect(ssh).toMatch(/Retest status Partially resolved/);
    expect(ssh).toMatch(/192\.168\.2\.100:22\/tcp Resolved/);
    expect(ssh).toMatch(/192\.168\.2\.101:22\/tcp Not retested/);
    // Fixed on one port of the host, still there on the others.
    const cookie = findingPart(text, titleOf['cookies-without-httponly']!);
    expect(cookie).toMatch(/Retest status Partially resolved/);
    expect(cookie).toMatch(/127\.0\.0\.1:10142 \S+ Resolved/);
    expect(cookie).toMatch(/127\.0\.0\.1:10141 \S+ Unresolved/);
    // Still reported where the re-scan looked, not retested on the host it left out.
    const openssh = findingPart(text, titleOf['53841']!);
    expect(openssh).toMatch(/Retest status Unresolved/);
    expect(openssh).toMatch(/192\.168\.2\.100:22\/tcp Unresolved/);
    expect(openssh).toMatch(/192\.168\.2\.101:22\/tcp Not retested/);
    // First seen in the retest.
    const telnet = findingPart(text, titleOf['990001']!);
    expect(telnet).toMatch(/Retest status New/);
    expect(telnet).toMatch(/192\.168\.2\.100:23\/tcp New/);
  });

  it('in the example Word template, and for a second round', { timeout: 180_000 }, async () => {
    const style = await member.api.post('/style-library', { name: 'Firm template' });
    const form = new FormData();
    form.set('file', new Blob([EXAMPLE_TEMPLATE]), 'firm.docx');
    expect(
      (await member.api.request('PUT', `/style-library/${style.body.id}/word-template`, { body: form })).status,
    ).toBe(200);
    expect((await member.api.patch(`/reports/${ids.retest}`, { styleId: style.body.id })).status).toBe(200);
    const flat = squash(await pdfText(ids.retest));
    expect(flat).toContain('Retest results Round 1 · Retest of: Internal network test');
    expect(flat).toContain('Status per asset');
    for (const status of ['Resolved', 'Partially resolved', 'Unresolved', 'New', 'Not retested'])
      expect(flat).toContain(` ${status} `);

    // Round 2 takes the style of round 1 and starts with every finding not retested.
    const round2 = await member.api.post(`/reports/${ids.retest}/retests`, {});
    expect(round2.status).toBe(201);
    expect(round2.body.styleId).toBe(style.body.id);
    await member.api.patch(`/reports/${round2.body.id}`, { styleId: null });
    const second = squash(await pdfText(round2.body.id));
    expect(second).toContain('Retest results Round 2 of the retest of "Internal network test"');
    expect(findingPart(second, titleOf['50070']!)).toMatch(/Retest status Not retested Retest date —/);
  });
});
