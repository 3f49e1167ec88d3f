// GET /reports/{id}/export-pdf: the report as a client reads it (LibreOffice, pdftotext), and the
// answers when conversions are busy, missing or too large for a PDF.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DocxPdfConverter } from '@service/docx';
import { waitUntil } from '@service/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const run = promisify(execFile);
interface ErrorBody {
  error: { code: string; message: string };
}
// Why: the PDF export converts with LibreOffice; CI installs it and poppler (.ci/run).
const toolsInstalled = spawnSync('soffice', ['--version']).status === 0 && spawnSync('pdftotext', ['-v']).status === 0;

let workDir: string;
beforeAll(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'report-pdf-'));
});
afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

async function newReport(actor: Actor, extra: Record<string, unknown> = {}): Promise<string> {
  const clientId = (await actor.api.post('/clients', { name: `PDF Ltd ${Math.random()}` })).body.id;
  await actor.allow(clientId);
  const projectId = (await actor.api.post('/projects', { clientId, name: 'PDF' })).body.id;
  const res = await actor.api.post('/reports', { projectId, title: 'Prüfbericht', ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

function pdf(app: TestApp, actor: Actor, reportId: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${app.url}/rest/v1/reports/${reportId}/export-pdf`, {
    headers: { authorization: `Bearer ${actor.key}` },
    ...(signal ? { signal } : {}),
  });
}

describe.skipIf(!toolsInstalled)('a report as PDF (skipped: LibreOffice or poppler is not installed)', () => {
  let app: TestApp;
  let actor: Actor;
  beforeAll(async () => {
    // Every request counted at one instant: X-RateLimit-Remaining moves only by what requests cost.
    app = await startTestApp({}, { rateLimitAt: Date.UTC(2026, 0, 1) });
    actor = await createActor(app, { role: 'member' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('reads in German, worst finding first, with page numbers in the contents', { timeout: 240_000 }, async () => {
    const reportId = await newReport(actor, { language: 'de' });
    for (const [title, severity] of [
      ['Veraltete Bibliothek', 'low'],
      ['Offener Verzeichnisindex', 'medium'],
      ['Entfernte Codeausführung', 'critical'],
    ])
      expect((await actor.api.post('/findings', { reportId, title, severity })).status).toBe(201);
    const res = await pdf(app, actor, reportId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toContain('.pdf');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const file = path.join(workDir, 'de.pdf');
    writeFileSync(file, bytes);
    const { stdout: text } = await run('pdftotext', ['-layout', file, '-']);
    // German words of our layout, none of the English ones.
    expect(text).toContain('Inhalt');
    expect(text).toContain('Schweregrad');
    expect(text).not.toMatch(/\bContents\b|\bSeverity\b/);
    // Worst first, in the contents and in the body alike.
    expect(text.indexOf('Entfernte Codeausführung')).toBeLessThan(text.indexOf('Offener Verzeichnisindex'));
    expect(text.indexOf('Offener Verzeichnisindex')).toBeLessThan(text.indexOf('Veraltete Bibliothek'));
    expect(text.lastIndexOf('Entfernte Codeausführung')).toBeLessThan(text.lastIndexOf('Offener Verzeichnisindex'));
    expect(text.lastIndexOf('Offener Verzeichnisindex')).toBeLessThan(text.lastIndexOf('Veraltete Bibliothek'));
    // The contents page gives each finding a page number (the index was updated in LibreOffice).
    expect(text).toMatch(/Entfernte Codeausführung[ .\t]*\d+\s*$/m);
    // A second download of the same report is 304 for a client holding the first, answered before
    // anything is rendered or converted, for 1 rate unit instead of 10.
    const rendered = { ...app.services.reportExports.rendered };
    const again = await fetch(`${app.url}/rest/v1/reports/${reportId}/export-pdf`, {
      headers: { authorization: `Bearer ${actor.key}`, 'if-none-match': res.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
    expect(app.services.reportExports.rendered).toEqual(rendered);
    expect(Number(res.headers.get('x-ratelimit-remaining')) - Number(again.headers.get('x-ratelimit-remaining'))).toBe(
      1,
    );
  });
});

describe('when a PDF cannot be made now', () => {
  it('answers 503 with Retry-After while the conversions are busy, and frees the place when that client leaves', async () => {
    // A converter whose "LibreOffice" waits until it is killed: one runs, none may wait.
    const converter = new DocxPdfConverter({
      command: [process.execPath, '-e', 'setInterval(() => {}, 1000)', '--'],
      maxQueued: 0,
    });
    const app = await startTestApp({}, { pdf: converter });
    try {
      const actor = await createActor(app, { role: 'member' });
      const reportId = await newReport(actor);
      const leaving = new AbortController();
      const first = pdf(app, actor, reportId, leaving.signal).catch((err: unknown) => err);
      await waitUntil('the first conversion runs', () => converter.busy);
      const busy = await pdf(app, actor, reportId);
      expect(busy.status).toBe(503);
      expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await busy.json()) as ErrorBody).error.code).toBe('unavailable');
      // The first client leaves: its conversion is stopped and the place is free again.
      leaving.abort();
      await first;
      await waitUntil('the conversion is stopped', () => !converter.busy);
    } finally {
      await app.stop();
    }
  });

  it('answers 503 naming LibreOffice when it is not installed, and too large when it takes too long', async () => {
    const missing = await startTestApp({}, { pdf: new DocxPdfConverter({ command: ['no-such-soffice-here'] }) });
    try {
      const actor = await createActor(missing, { role: 'member' });
      const res = await pdf(missing, actor, await newReport(actor));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('3600');
      expect(((await res.json()) as ErrorBody).error.message).toContain('LibreOffice');
    } finally {
      await missing.stop();
    }
    const slow = await startTestApp(
      {},
      {
        pdf: new DocxPdfConverter({
          command: [process.execPath, '-e', 'setInterval(() => {}, 1000)', '--'],
          timeoutMs: 200,
        }),
      },
    );
    try {
      const actor = await createActor(slow, { role: 'member' });
      const res = await pdf(slow, actor, await newReport(actor));
      expect(res.status).toBe(503);
      const body = (await res.json()) as ErrorBody;
      expect(body.error.code).toBe('unavailable');
      expect(body.error.message).toContain('DOCX');
    } finally {
      await slow.stop();
    }
  });
});
