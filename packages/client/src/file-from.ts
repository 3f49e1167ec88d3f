import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';

/** Larger than the largest upload the service takes (a Markdown report, 64 MB). */
export const DEFAULT_MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

export interface FileFromOptions {
  /** The file name the service sees; default: the path's base name, or `upload`. */
  name?: string;
  /** The media type; default none (the service detects every upload by its content). */
  type?: string;
  /** A stream longer than this is refused before anything is sent. Default 64 MB. */
  maxBytes?: number;
}

/** What an upload can come from: a path on disk, bytes, or a stream of bytes (a Node or a web stream). */
export type UploadSource = string | Uint8Array | AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>;

function isReadableStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof ReadableStream !== 'undefined' && value instanceof ReadableStream;
}

/**
 * A File for an upload field (`file` of the evidence, Word template, scanner and Markdown uploads).
 * A path is read lazily from disk as the request is sent; a stream is read into memory first, up
 * to `maxBytes`, because a retried request must send the same bytes again and a stream can be read
 * only once.
 */
export async function fileFrom(source: UploadSource, options: FileFromOptions = {}): Promise<File> {
  const type = options.type ?? '';
  if (typeof source === 'string') {
    const info = await stat(source);
    if (!info.isFile()) throw new Error(`${source} is not a file.`);
    const blob = await openAsBlob(source, { type });
    return new File([blob], options.name ?? path.basename(source), { type });
  }
  const name = options.name ?? 'upload';
  if (source instanceof Uint8Array) return new File([source], name, { type });
  const max = options.maxBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const iterable: AsyncIterable<Uint8Array | string> = isReadableStream(source) ? streamChunks(source) : source;
  for await (const chunk of iterable) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.byteLength;
    if (size > max) throw new Error(`The stream for ${name} is longer than ${max} bytes; nothing was sent.`);
    chunks.push(bytes);
  }
  return new File(chunks, name, { type });
}

async function* streamChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
