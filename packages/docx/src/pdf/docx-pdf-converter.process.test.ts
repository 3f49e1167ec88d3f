// The PDF converter's queue, time limit and clean-up, with a stand-in for LibreOffice
// (testing/stub-office.mjs) so nothing here depends on timing or on an office suite; and one real
// conversion when LibreOffice is installed.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PROCESS_START_MS } from '@service/test-lanes';
import { resolveReportStyle } from '@service/report-model';
import { renderReportDocx } from '../index.ts';
import { SAMPLE_REPORT } from '../template/sample-report.ts';
import { officeAvailable } from '../testing/convert-to-pdf.ts';
import { DocxPdfConverter, PdfConversionError, PdfQueueFullError } from './docx-pdf-converter.ts';

const STUB = fileURLToPath(new URL('../testing/stub-office.mjs', import.meta.url));
const DOCX = new TextEncoder().encode('not really a docx: the stub does not read it');

let root: string;
let jobs: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'pdf-converter-test-'));
  jobs = path.join(root, 'jobs');
  await mkdir(jobs);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const stub = (...flags: string[]) => [process.execPath, STUB, ...flags];

/** Whether a process is gone (or only a zombie waiting for its parent to collect it). */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
  } catch {
    return true;
  }
}

describe('DocxPdfConverter', () => {
  it('runs one conversion at a time, queues a bounded number, and refuses the next with a retry time', async () => {
    const started = path.join(root, 'started');
    const release = path.join(root, 'release');
    const converter = new DocxPdfConverter({
      command: stub(`--started=${started}`, `--release=${release}`),
      maxQueued: 1,
      tempDir: jobs,
    });
    const first = converter.convert(DOCX);
    await vi.waitFor(() => expect(existsSync(started)).toBe(true), { timeout: PROCESS_START_MS });
    expect(converter.busy).toBe(true);
    const second = converter.convert(DOCX);
    expect(converter.queued).toBe(1);

    const refused = await converter.convert(DOCX).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PdfQueueFullError);
    const full = refused as PdfQueueFullError;
    expect([full.status, full.code, full.expose]).toEqual([503, 'pdf_queue_full', true]);
    expect(Number.isInteger(full.retryAfterSeconds) && full.retryAfterSeconds >= 1).toBe(true);

    await writeFile(release, '');
    for (const pdf of await Promise.all([first, second]))
      expect(new TextDecoder().decode(pdf.subarray(0, 5))).toBe('%PDF-');
    expect(converter.busy).toBe(false);
    expect(await readdir(jobs)).toEqual([]);
  });

  it('takes a waiting conversion out of the queue when its request is aborted', async () => {
    const started = path.join(root, 'started');
    const release = path.join(root, 'release');
    const converter = new DocxPdfConverter({
      command: stub(`--started=${started}`, `--release=${release}`),
      tempDir: jobs,
    });
    const first = converter.convert(DOCX);
    await vi.waitFor(() => expect(existsSync(started)).toBe(true), { timeout: PROCESS_START_MS });
    const abort = new AbortController();
    const waiting = converter.convert(DOCX, { signal: abort.signal }).catch((e: unknown) => e);
    abort.abort();
    const err = await waiting;
    expect(err).toBeInstanceOf(PdfConversionError);
    expect((err as PdfConversionError).reason).toBe('cancelled');
    expect(converter.queued).toBe(0);
    await writeFile(release, '');
    await first;
    expect(await readdir(jobs)).toEqual([]);
  });

  it('never starts LibreOffice for a request that left while its run was being prepared', async () => {
    const started = path.join(root, 'started');
    const converter = new DocxPdfConverter({
      command: stub(`--started=${started}`, `--release=${path.join(root, 'never')}`),
      tempDir: jobs,
    });
    const abort = new AbortController();
    // Aborted in the same turn: the run has taken the job but not yet spawned the command.
    const leaving = converter.convert(DOCX, { signal: abort.signal }).catch((e: unknown) => e);
    expect(converter.busy).toBe(true);
    abort.abort();
    expect(((await leaving) as PdfConversionError).reason).toBe('cancelled');
    await vi.waitFor(() => expect(converter.busy).toBe(false));
    expect(existsSync(started)).toBe(false);
    expect(await readdir(jobs)).toEqual([]);
  });

  it('on close, cancels what waits and kills what runs, and takes nothing new', async () => {
    const started = path.join(root, 'started');
    const converter = new DocxPdfConverter({
      command: stub(`--started=${started}`, `--release=${path.join(root, 'never')}`),
      tempDir: jobs,
    });
    const running = converter.convert(DOCX).catch((e: unknown) => e);
    await vi.waitFor(() => expect(existsSync(started)).toBe(true), { timeout: PROCESS_START_MS });
    const waiting = converter.convert(DOCX).catch((e: unknown) => e);
    converter.close();
    for (const err of await Promise.all([running, waiting]))
      expect((err as PdfConversionError).reason).toBe('cancelled');
    expect(((await converter.convert(DOCX).catch((e: unknown) => e)) as PdfConversionError).reason).toBe('cancelled');
    expect(await readdir(jobs)).toEqual([]);
  });

  it('kills the whole process group when the time limit passes, and removes its files', async () => {
    const pidFile = path.join(root, 'helper.pid');
    const converter = new DocxPdfConverter({ command: stub(`--hang=${pidFile}`), timeoutMs: 1000, tempDir: jobs });
    const err = await converter.convert(DOCX).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PdfConversionError);
    expect((err as PdfConversionError).reason).toBe('timeout');
    // The stand-in's own child (as LibreOffice's helpers would be) went with the group.
    const helper = Number(readFileSync(pidFile, 'utf8'));
    await vi.waitFor(() => expect(gone(helper)).toBe(true), { timeout: PROCESS_START_MS });
    expect(await readdir(jobs)).toEqual([]);
  });

  it('reports a failed conversion with what LibreOffice said, and removes its files', async () => {
    const converter = new DocxPdfConverter({ command: stub('--fail'), tempDir: jobs });
    const err = (await converter.convert(DOCX).catch((e: unknown) => e)) as PdfConversionError;
    expect(err).toBeInstanceOf(PdfConversionError);
    expect([err.reason, err.status, err.expose]).toEqual(['failed', 500, false]);
    expect(err.detail).toMatch(/could not be opened/);
    expect(await readdir(jobs)).toEqual([]);

    const missing = new DocxPdfConverter({ command: ['/nonexistent/soffice'], tempDir: jobs });
    const notInstalled = (await missing.convert(DOCX).catch((e: unknown) => e)) as PdfConversionError;
    expect(notInstalled.reason).toBe('not-installed');
    expect(await readdir(jobs)).toEqual([]);
  });

  it.skipIf(!officeAvailable())(
    'converts a real report with LibreOffice (docx-pdf.test.ts reads the PDFs back)',
    { timeout: 180_000 },
    async () => {
      const docx = await renderReportDocx(SAMPLE_REPORT, {
        style: resolveReportStyle(null),
        loadImage: async () => null,
        now: new Date('2024-03-10T00:00:00Z'),
      });
      const pdf = await new DocxPdfConverter({ tempDir: jobs }).convert(docx);
      expect(new TextDecoder().decode(pdf.subarray(0, 5))).toBe('%PDF-');
      const text = new TextDecoder('latin1').decode(pdf);
      expect(text).toMatch(/\/Type\s*\/Page\b/);
      expect(await readdir(jobs)).toEqual([]);
    },
  );
});
