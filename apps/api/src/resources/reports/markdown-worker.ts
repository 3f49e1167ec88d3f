// The Markdown reader in a worker thread (see read-markdown-off-thread.ts): reads one file sent by
// the service and answers with the document or the reader's error, then the service ends it.
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { importReportMarkdown, MarkdownFormatError } from '@service/markdown';
import type { MarkdownSource, WorkerAnswer } from './read-markdown-off-thread.ts';

parentPort!.once('message', (source: MarkdownSource) => {
  let answer: WorkerAnswer;
  try {
    answer = {
      ok: importReportMarkdown(typeof source === 'object' && 'file' in source ? readFileSync(source.file) : source),
    };
  } catch (err) {
    answer =
      err instanceof MarkdownFormatError
        ? {
            formatError: {
              line: err.line,
              column: err.column,
              expected: err.expected,
              message: err.message,
              path: err.path,
              tooLarge: err.code === 'payload_too_large',
            },
          }
        : { failed: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  parentPort!.postMessage(answer);
});
