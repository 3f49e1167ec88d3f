import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { importReportMarkdown, MarkdownFormatError, type ImportedReportMarkdown } from '@service/markdown';
import { REPO_ROOT } from '../../build-info.ts';

/** The file's text or bytes, or the path of an uploaded file (which the worker reads itself). */
export type MarkdownSource = string | Uint8Array | { file: string };

/** What markdown-worker.ts answers. */
export type WorkerAnswer =
  | { ok: ImportedReportMarkdown }
  | {
      formatError: {
        line: number;
        column: number;
        expected: string;
        message: string;
        path?: string;
        tooLarge: boolean;
      };
    }
  | { failed: string };

/**
 * The bundled worker, next to the bundled service (`npm start` and the release image build it);
 * absent when the service runs from its TypeScript sources (tests), which read on the event loop.
 */
const WORKER_FILE = path.join(REPO_ROOT, 'apps/api/src/markdown-worker.js');

/**
 * Reads a report file in a worker thread that ends afterwards. Why: reading takes about a second a
 * megabyte of the event loop's time (a minute for the largest file), during which no other request
 * would be answered; and the reader's garbage (hundreds of MB for 50,000 findings) goes with the
 * worker instead of staying in the service's heap. Throws what importReportMarkdown throws.
 */
export async function readMarkdownOffThread(source: MarkdownSource): Promise<ImportedReportMarkdown> {
  if (!existsSync(WORKER_FILE))
    return importReportMarkdown(typeof source === 'object' && 'file' in source ? readFileSync(source.file) : source);
  const worker = new Worker(WORKER_FILE);
  try {
    const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the Markdown worker exited with ${code}`)));
      worker.postMessage(source);
    });
    if ('ok' in answer) return answer.ok;
    if ('formatError' in answer) {
      const e = answer.formatError;
      const prefix = `line ${e.line}, column ${e.column}: `;
      throw new MarkdownFormatError(
        { line: e.line, column: e.column },
        e.expected,
        e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message,
        { path: e.path, tooLarge: e.tooLarge },
      );
    }
    throw new Error(`reading the Markdown file failed: ${answer.failed}`);
  } finally {
    await worker.terminate();
  }
}
