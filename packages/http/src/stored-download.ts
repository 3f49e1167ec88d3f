import type { Readable } from 'node:stream';
import type { Context } from 'koa';
import { ifNoneMatchHits } from './conditional-get.ts';
import { HttpError } from './http-error.ts';
import type { HeaderParameterDoc, ResponseDoc } from './openapi-registry.ts';

/** Bytes `start` to `end` of a file, both included. */
export interface ByteSpan {
  start: number;
  end: number;
}

/**
 * The one range of a `Range: bytes=...` header (RFC 9110, 14.1.2) within `size` bytes: `a-b`,
 * `a-` and `-n` (the last n). Null when the header is absent, not a bytes range, malformed or asks
 * for several ranges (then the whole file is sent, as the RFC allows); `unsatisfiable` when it
 * starts at or after the end.
 */
export function parseByteRange(header: string | undefined, size: number): ByteSpan | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** A strong ETag from a file's SHA-256 (hex): the same tag the ETag middleware gives the same bytes. */
export function storedFileEtag(sha256: string): string {
  return `"${Buffer.from(sha256, 'hex').toString('base64url').slice(0, 27)}"`;
}

/** The `Range` and `If-Range` request headers a stored download honours, for its OpenAPI declaration. */
export const RANGE_HEADERS: HeaderParameterDoc[] = [
  {
    name: 'Range',
    description:
      'One byte range, `bytes=start-end`, `bytes=start-` or `bytes=-length`: the answer is 206 with that part. ' +
      'Several ranges, or a header that is not a bytes range, get the whole file (200).',
    schema: { type: 'string', pattern: '^bytes=' },
  },
  {
    name: 'If-Range',
    description: 'An `ETag`: the range is sent only when the file still has this tag, otherwise the whole file.',
    schema: { type: 'string', pattern: '^[\\x20-\\x7e]*$' },
  },
];

/** The 206 and 416 answers of a stored download, for its OpenAPI declaration. */
export function rangeResponses(contentType: string): Record<number, ResponseDoc> {
  return {
    206: {
      description: 'The byte range asked for in `Range`.',
      contentType,
      schema: { type: 'string', format: 'binary' } as never,
      headers: {
        'Content-Range': { description: '`bytes start-end/size`.', schema: { type: 'string' } },
        'Accept-Ranges': { description: '`bytes`.', schema: { type: 'string' } },
        ETag: { description: 'The strong tag of the whole file.', schema: { type: 'string' } },
      },
    },
    416: {
      description:
        'The `Range` starts at or after the end of the file (`range_not_satisfiable`); `Content-Range` gives its size.',
      schema: 'Error',
      headers: { 'Content-Range': { description: '`bytes */size`.', schema: { type: 'string' } } },
    },
  };
}

/**
 * Answers a GET of a stored file: `ETag` from its SHA-256 and 304 when `If-None-Match` holds it (the
 * file is not opened then), `Accept-Ranges: bytes`, 206 for one satisfiable `Range` (honouring
 * `If-Range`), 416 for one past the end, else the whole file. The body is the store's stream, so
 * the file never sits whole in memory.
 */
export async function sendStoredFile(
  ctx: Context,
  file: {
    sha256: string;
    size: number;
    contentType: string;
    open(range?: ByteSpan): Promise<{ body: Readable }>;
  },
): Promise<void> {
  const etag = storedFileEtag(file.sha256);
  ctx.set('ETag', etag);
  ctx.set('Accept-Ranges', 'bytes');
  if (ifNoneMatchHits(ctx.get('If-None-Match'), etag)) {
    ctx.status = 304;
    ctx.body = null;
    return;
  }
  const ifRange = ctx.get('If-Range');
  const range = ifRange && ifRange.trim() !== etag ? null : parseByteRange(ctx.get('Range') || undefined, file.size);
  if (range === 'unsatisfiable')
    throw new HttpError(
      416,
      'range_not_satisfiable',
      `The range starts after the end of the file (${file.size} bytes).`,
      {
        headers: { 'Content-Range': `bytes */${file.size}` },
      },
    );
  const { body } = await file.open(range ?? undefined);
  ctx.type = file.contentType;
  if (range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
    ctx.body = body;
    ctx.length = range.end - range.start + 1;
  } else {
    ctx.status = 200;
    ctx.body = body;
    ctx.length = file.size;
  }
}
