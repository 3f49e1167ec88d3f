import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { conversionMacro, writeOfficeProfile } from './office-profile.ts';

/**
 * DOCX to PDF with LibreOffice headless, as a service process can afford it: one conversion at a
 * time per converter (LibreOffice is memory-hungry and single-threaded in layout), a bounded queue
 * behind it, a time limit that kills the whole process group, a private profile and temporary
 * folder per run, removed on every path, and nothing that blocks the event loop (the work is in
 * the child process; files are read and written asynchronously).
 */

export interface DocxPdfConverterOptions {
  /** The LibreOffice command, with any arguments that go before ours. Default: `['soffice']`. */
  command?: readonly string[];
  /** A conversion still running after this is killed (its whole process group). Default: 3 minutes. */
  timeoutMs?: number;
  /** Conversions that may wait behind the running one; one more is refused. Default: 4. */
  maxQueued?: number;
  /** Where each run's temporary folder is made. Default: the system's temporary folder. */
  tempDir?: string;
  /** The largest DOCX accepted. Default: 256 MB. */
  maxDocxBytes?: number;
}

/** The queue is full: try again later. The API answers 503 with `Retry-After: retryAfterSeconds`. */
export class PdfQueueFullError extends Error {
  readonly code = 'pdf_queue_full' as const;
  readonly status = 503 as const;
  readonly expose = true;
  constructor(
    message: string,
    /** A guess at when a place frees up, from how long recent conversions took. */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'PdfQueueFullError';
  }
}

/** LibreOffice did not produce a PDF: it failed, timed out, is missing, or the run was cancelled. */
export class PdfConversionError extends Error {
  readonly code = 'pdf_conversion_failed' as const;
  readonly status = 500 as const;
  readonly expose = false;
  constructor(
    message: string,
    readonly reason: 'failed' | 'timeout' | 'not-installed' | 'cancelled' | 'too-large',
    /** What LibreOffice said (the end of its output and the macro's error), for the server log. */
    readonly detail: string = '',
  ) {
    super(message);
    this.name = 'PdfConversionError';
  }
}

interface Job {
  docx: Uint8Array;
  signal: AbortSignal | undefined;
  resolve(pdf: Uint8Array): void;
  reject(err: Error): void;
  onAbort?: () => void;
}

const DEFAULTS = { command: ['soffice'], timeoutMs: 180_000, maxQueued: 4, maxDocxBytes: 256 * 1024 * 1024 };
const OUTPUT_TAIL = 4000;

export class DocxPdfConverter {
  private readonly command: readonly string[];
  private readonly timeoutMs: number;
  private readonly maxQueued: number;
  private readonly tempDir: string;
  private readonly maxDocxBytes: number;
  private readonly queue: Job[] = [];
  private running: Job | null = null;
  private cancelRunning: (() => void) | null = null;
  private closed = false;
  /** Durations of the last few conversions, for Retry-After. */
  private readonly recent: number[] = [];

  constructor(options: DocxPdfConverterOptions = {}) {
    this.command = options.command ?? DEFAULTS.command;
    if (this.command.length === 0) throw new Error('the PDF converter needs a command');
    this.timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.maxQueued = options.maxQueued ?? DEFAULTS.maxQueued;
    this.tempDir = options.tempDir ?? tmpdir();
    this.maxDocxBytes = options.maxDocxBytes ?? DEFAULTS.maxDocxBytes;
  }

  /** Conversions waiting behind the running one. */
  get queued(): number {
    return this.queue.length;
  }

  /** Whether a conversion is running now. */
  get busy(): boolean {
    return this.running !== null;
  }

  /**
   * The PDF of a DOCX. Throws PdfQueueFullError at once when the queue is full, and
   * PdfConversionError when LibreOffice fails, takes too long, or `signal` aborts the request
   * (a waiting job leaves the queue; a running one is killed).
   */
  convert(docx: Uint8Array, options: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
    if (docx.byteLength > this.maxDocxBytes)
      return Promise.reject(
        new PdfConversionError(`the document is over ${this.maxDocxBytes / 1048576} MB`, 'too-large'),
      );
    if (options.signal?.aborted || this.closed) return Promise.reject(cancelled());
    if (this.running !== null && this.queue.length >= this.maxQueued)
      return Promise.reject(
        new PdfQueueFullError(
          `${this.queue.length + 1} PDF conversions are already running or waiting; try again later`,
          this.retryAfterSeconds(),
        ),
      );
    return new Promise<Uint8Array>((resolve, reject) => {
      const job: Job = { docx, signal: options.signal, resolve, reject };
      if (options.signal) {
        job.onAbort = () => {
          const at = this.queue.indexOf(job);
          if (at >= 0) {
            this.queue.splice(at, 1);
            reject(cancelled());
          }
        };
        options.signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.next();
    });
  }

  /**
   * For shutdown: refuses new conversions, cancels the waiting ones and kills the running one (its
   * LibreOffice runs in a process group of its own and would otherwise outlive the service).
   */
  close(): void {
    this.closed = true;
    for (const job of this.queue.splice(0)) {
      if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
      job.reject(cancelled());
    }
    this.cancelRunning?.();
  }

  /** Seconds until a place in the queue is likely free: the average recent run times everyone ahead. */
  retryAfterSeconds(): number {
    const average = this.recent.length === 0 ? 30_000 : this.recent.reduce((a, b) => a + b, 0) / this.recent.length;
    return Math.min(600, Math.max(1, Math.ceil((average * (this.queue.length + 1)) / 1000)));
  }

  private next(): void {
    if (this.running !== null) return;
    const job = this.queue.shift();
    if (!job) return;
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    this.running = job;
    // Why a controller of our own: the request's signal and close() both stop the run.
    const controller = new AbortController();
    const forward = () => controller.abort();
    job.signal?.addEventListener('abort', forward, { once: true });
    if (job.signal?.aborted) controller.abort();
    this.cancelRunning = forward;
    const started = performance.now();
    this.run(job.docx, controller.signal)
      .then(
        (pdf) => {
          this.recent.push(performance.now() - started);
          if (this.recent.length > 5) this.recent.shift();
          job.resolve(pdf);
        },
        (err: Error) => job.reject(err),
      )
      .finally(() => {
        job.signal?.removeEventListener('abort', forward);
        this.running = null;
        this.cancelRunning = null;
        this.next();
      });
  }

  /** One LibreOffice run in its own folder, which is removed whatever happens. */
  private async run(docx: Uint8Array, signal: AbortSignal | undefined): Promise<Uint8Array> {
    const dir = await mkdtemp(path.join(this.tempDir, 'docx-pdf-'));
    try {
      const input = path.join(dir, 'report.docx');
      const output = path.join(dir, 'report.pdf');
      const errors = path.join(dir, 'error.txt');
      const profile = path.join(dir, 'profile');
      await writeFile(input, docx);
      await writeOfficeProfile(profile);
      const said = await this.spawnOffice(
        [
          `-env:UserInstallation=${pathToFileURL(profile).href}`,
          '--headless',
          '--invisible',
          '--nologo',
          '--norestore',
          '--nodefault',
          '--nolockcheck',
          conversionMacro(pathToFileURL(input).href, pathToFileURL(output).href, pathToFileURL(errors).href),
        ],
        dir,
        signal,
      );
      const macroError = await readFile(errors, 'utf8').catch(() => '');
      const size = await stat(output).then(
        (s) => s.size,
        () => 0,
      );
      if (macroError !== '' || size === 0)
        throw new PdfConversionError(
          'LibreOffice did not write the PDF',
          'failed',
          `${macroError.trim()}\n${said}`.trim(),
        );
      const pdf = new Uint8Array(await readFile(output));
      if (new TextDecoder().decode(pdf.subarray(0, 5)) !== '%PDF-')
        throw new PdfConversionError('LibreOffice wrote something that is not a PDF', 'failed', said);
      return pdf;
    } finally {
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    }
  }

  /**
   * Runs the office command in a process group of its own and resolves with the end of its
   * output once it has exited. On time-out or abort, the group is killed (LibreOffice starts
   * helper processes; killing only the first would leave them running).
   */
  private spawnOffice(args: string[], dir: string, signal: AbortSignal | undefined): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      // Why: a request that left while the run's folder was prepared must not start LibreOffice
      // (an abort event already fired would never reach the listener below).
      if (signal?.aborted) {
        reject(cancelled());
        return;
      }
      // Why a small environment: the service's settings (database URLs, keys) are none of
      // LibreOffice's business; HOME and TMPDIR in the run's folder keep every file it makes there.
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: dir,
        TMPDIR: dir,
        LANG: 'C.UTF-8',
        SAL_USE_VCLPLUGIN: 'svp',
      };
      const child = spawn(this.command[0]!, [...this.command.slice(1), ...args], {
        cwd: dir,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL);
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      let failure: PdfConversionError | null = null;
      const killGroup = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Why ignored: the group is already gone.
        }
      };
      const timer = setTimeout(() => {
        failure = new PdfConversionError(
          `LibreOffice took longer than ${Math.round(this.timeoutMs / 1000)} s and was stopped`,
          'timeout',
        );
        killGroup();
      }, this.timeoutMs);
      const onAbort = () => {
        failure = cancelled();
        killGroup();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      child.once('error', (err: NodeJS.ErrnoException) => {
        done();
        reject(
          err.code === 'ENOENT'
            ? new PdfConversionError(`${this.command[0]} is not installed`, 'not-installed', err.message)
            : new PdfConversionError('LibreOffice could not be started', 'failed', err.message),
        );
      });
      child.once('close', (code, sig) => {
        done();
        // Why kill after a clean exit too: a helper LibreOffice left behind must not outlive the run.
        killGroup();
        if (failure) reject(failure);
        else if (code !== 0)
          reject(new PdfConversionError(`LibreOffice exited with ${code ?? sig}`, 'failed', output.trim()));
        else resolve(output.trim());
      });
    });
  }
}

const cancelled = () => new PdfConversionError('the PDF conversion was cancelled', 'cancelled');

let shared: DocxPdfConverter | null = null;

/**
 * The PDF of a DOCX through this process's shared converter (one LibreOffice run at a time, a
 * queue of 4 behind it). Build a `DocxPdfConverter` of your own for other limits.
 */
export function convertDocxToPdf(docx: Uint8Array, options: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
  shared ??= new DocxPdfConverter();
  return shared.convert(docx, options);
}
