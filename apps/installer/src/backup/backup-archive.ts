import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import * as tar from 'tar';
import { OperatorError } from '@service/cli-kit';
import { assertSafeRelativePath, ReleaseKitError } from '@service/release-kit';

// The backup archive's reader and writer: a gzip-compressed tar, written entry by entry from
// different places (dumps, the file storage, the operator's configuration) and read as a stream.
// The only code of the installer that reads or writes tar.

export interface ArchiveEntrySource {
  /** Path inside the archive, `/`-separated, relative. */
  name: string;
  size: number;
  mode: number;
  mtime: Date;
  open(): Readable;
}

const BLOCK = 512;

/** Writes a .tar.gz of the entries, in their order; a failure of any stage (read, gzip, write) rejects. */
export async function writeArchive(
  file: string,
  entries: Iterable<ArchiveEntrySource> | AsyncIterable<ArchiveEntrySource>,
  onBytes?: (bytes: number) => void,
): Promise<void> {
  async function* chunks(): AsyncGenerator<Buffer> {
    for await (const entry of entries) {
      yield* headerBlocks(entry);
      let written = 0;
      for await (const chunk of entry.open()) {
        const buffer = chunk as Buffer;
        written += buffer.length;
        if (written > entry.size) throw new Error(`${entry.name} grew while it was being archived`);
        onBytes?.(buffer.length);
        yield buffer;
      }
      if (written !== entry.size)
        throw new Error(`${entry.name} changed size while it was being archived (${entry.size} -> ${written} bytes)`);
      const padding = (BLOCK - (entry.size % BLOCK)) % BLOCK;
      if (padding > 0) yield Buffer.alloc(padding);
    }
    yield Buffer.alloc(BLOCK * 2);
  }
  await pipeline(
    Readable.from(chunks()),
    createGzip({ level: 6 }),
    createWriteStream(file, { flags: 'wx', mode: 0o600 }),
  );
}

/** A ustar header, preceded by a PAX header when the name or size does not fit ustar. */
function* headerBlocks(entry: ArchiveEntrySource): Generator<Buffer> {
  assertSafeRelativePath(entry.name, 'backup entry');
  const nameBytes = Buffer.byteLength(entry.name);
  const needsPax = nameBytes > 100 || entry.size > 0o77777777777 || /[^\x20-\x7e]/.test(entry.name);
  if (needsPax) {
    const records = [
      paxRecord('path', entry.name),
      ...(entry.size > 0o77777777777 ? [paxRecord('size', String(entry.size))] : []),
    ].join('');
    const body = Buffer.from(records, 'utf8');
    yield ustarHeader(
      `PaxHeaders/${entry.name.slice(-80).replace(/[^\x20-\x7e]/g, '_')}`,
      body.length,
      0o644,
      entry.mtime,
      'x',
    );
    yield body;
    const padding = (BLOCK - (body.length % BLOCK)) % BLOCK;
    if (padding > 0) yield Buffer.alloc(padding);
  }
  const shortName = needsPax ? entry.name.replace(/[^\x20-\x7e]/g, '_').slice(-100) : entry.name;
  yield ustarHeader(shortName, Math.min(entry.size, 0o77777777777), entry.mode, entry.mtime, '0');
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length)
    length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

function ustarHeader(name: string, size: number, mode: number, mtime: Date, type: string): Buffer {
  const header = Buffer.alloc(BLOCK);
  header.write(name, 0, 100, 'utf8');
  header.write(octal(mode & 0o7777, 8), 100);
  header.write(octal(0, 8), 108);
  header.write(octal(0, 8), 116);
  header.write(octal(size, 12), 124);
  header.write(octal(Math.floor(mtime.getTime() / 1000), 12), 136);
  header.write('        ', 148);
  header.write(type, 156);
  header.write('ustar\u000000', 257, 'binary');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'binary');
  return header;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\u0000`;
}

/** One regular file read from an archive; `content` must be consumed (or resumed) before the next. */
export interface ArchiveEntry {
  name: string;
  size: number;
  content: tar.ReadEntry;
}

/**
 * Reads a .tar.gz entry by entry. Only regular files and folders are accepted, with plain relative
 * paths: a link, a device or a path with `..` makes the whole archive invalid (an archive is never
 * trusted to point outside where it is extracted).
 */
export async function readArchive(
  file: string,
  // biome-ignore lint/suspicious/noConfusingVoidType: a callback that returns nothing reads on; 'stop' ends the walk.
  onEntry: (entry: ArchiveEntry) => Promise<void | 'stop'>,
): Promise<void> {
  const failures: Error[] = [];
  let queue = Promise.resolve();
  let stopped = false;
  const source = createReadStream(file);
  const gunzip = createGunzip();
  const parser = new tar.Parser({ strict: true });
  // Why not stream.pipeline: tar's parser is not a Node stream, and pipeline would wait forever
  // for it once the source is destroyed early (`stop`).
  let finish: (err?: Error) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    let settled = false;
    finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      if (err && !stopped)
        reject(
          new OperatorError(`${file} is not a complete .tar.gz archive (${err.message})`, {
            hint: 'Use another backup; this one is damaged or was cut short.',
            cause: err,
          }),
        );
      else resolve();
    };
    source.on('error', finish);
    gunzip.on('error', finish);
    parser.on('error', finish);
    parser.on('end', () => finish());
  });
  parser.on('entry', (entry: tar.ReadEntry) => {
    const name = entry.path.replace(/\/$/, '');
    if (entry.type === 'Directory') {
      entry.resume();
      return;
    }
    if (entry.type !== 'File' && entry.type !== 'OldFile') {
      failures.push(
        new OperatorError(`${file} holds ${entry.path}, a ${entry.type}; a backup holds regular files only`, {
          hint: 'Use a backup written by `install.sh backup`.',
        }),
      );
      entry.resume();
      return;
    }
    try {
      assertSafeRelativePath(name, file);
    } catch (err) {
      failures.push(
        err instanceof ReleaseKitError
          ? new OperatorError(err.message, { hint: 'Use a backup written by `install.sh backup`.' })
          : (err as Error),
      );
      entry.resume();
      return;
    }
    entry.pause();
    queue = queue
      .then(async () => {
        if (stopped) return entry.resume();
        if ((await onEntry({ name, size: entry.size ?? 0, content: entry })) === 'stop') {
          // Why stop by closing the source: reading on would gunzip the whole archive for nothing.
          stopped = true;
          source.unpipe();
          source.destroy();
          gunzip.destroy();
          finish();
        }
      })
      .catch((err: Error) => {
        failures.push(err);
        entry.resume();
      });
  });
  source.pipe(gunzip).pipe(parser);
  await done;
  await queue;
  if (failures.length > 0) throw failures[0]!;
}
