import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, link, readdir, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteRange, ListedObject, ObjectRead, ObjectStore, StoredObject } from './object-store.ts';
import { assertObjectKey, isObjectKey } from './object-keys.ts';
import {
  isNoSpaceError,
  ObjectExistsError,
  ObjectNotFoundError,
  RangeNotSatisfiableError,
  StoreFullError,
  StoreUnavailableError,
} from './store-errors.ts';

/** Where writes are made before they are linked into place: inside the store, so the link is atomic. */
const PARTIAL_DIR = '.partial';
/** A partial file untouched this long belongs to a process that is gone; removed at start and by the sweep. */
export const STALE_PARTIAL_MS = 15 * 60_000;

/** Counts and hashes the bytes that pass, so a write knows its size and SHA-256 without a second read. */
export function hashingStream(): Transform & { digest(): StoredObject } {
  const hash = createHash('sha256');
  let size = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  let sha256: string | null = null;
  const digest = (): StoredObject => {
    if (sha256 === null) sha256 = hash.digest('hex');
    return { size, sha256 };
  };
  return Object.assign(t, { digest });
}

function errorOf(err: unknown, key: string): Error {
  if (isNoSpaceError(err)) return new StoreFullError({ cause: err });
  const code = (err as { code?: string })?.code;
  if (code === 'ENOENT') return new ObjectNotFoundError(key);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return new StoreUnavailableError('not writable', { cause: err });
  if (code === 'EIO' || code === 'ENOTCONN' || code === 'ESTALE')
    return new StoreUnavailableError('input/output error', { cause: err });
  return err as Error;
}

/**
 * Objects as files under a directory (`FILES_DIR`): the key is the relative path. A write goes to
 * a file in `.partial/`, is flushed to disk, and is then hard-linked into place, which fails when
 * the name exists (objects are written once) and never shows a half-written file under a key; the
 * partial file is removed on every failure and, when a crash left it, at the next start.
 */
export class LocalObjectStore implements ObjectStore {
  readonly kind = 'local' as const;
  readonly description: string;

  constructor(private readonly root: string) {
    this.description = `local directory ${root}`;
  }

  private pathOf(key: string): string {
    assertObjectKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async check(): Promise<void> {
    try {
      await mkdir(path.join(this.root, PARTIAL_DIR), { recursive: true, mode: 0o700 });
      await this.removeStalePartials(STALE_PARTIAL_MS);
      const probe = path.join(this.root, PARTIAL_DIR, `probe-${randomBytes(8).toString('hex')}`);
      const fh = await open(probe, 'wx', 0o600);
      await fh.close();
      await unlink(probe);
    } catch (err) {
      if (err instanceof StoreUnavailableError) throw err;
      const code = (err as { code?: string })?.code;
      throw new StoreUnavailableError(
        isNoSpaceError(err) ? 'not writable (disk full)' : code === 'ENOTDIR' ? 'not a directory' : 'not writable',
        { cause: err },
      );
    }
  }

  /** Removes partial files not written to for `olderThanMs` (a crashed process's); returns how many. */
  async removeStalePartials(olderThanMs: number, now = Date.now()): Promise<number> {
    const dir = path.join(this.root, PARTIAL_DIR);
    let removed = 0;
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const file = path.join(dir, name);
      const info = await stat(file).catch(() => null);
      if (info && now - info.mtimeMs >= olderThanMs) {
        await rm(file, { force: true, recursive: true });
        removed++;
      }
    }
    return removed;
  }

  async put(key: string, body: Readable | Uint8Array, size: number): Promise<StoredObject> {
    const target = this.pathOf(key);
    const partial = path.join(this.root, PARTIAL_DIR, `${process.pid}-${randomBytes(12).toString('hex')}`);
    let written = false;
    try {
      await mkdir(path.dirname(partial), { recursive: true, mode: 0o700 });
      const fh = await open(partial, 'wx', 0o600);
      written = true;
      const hasher = hashingStream();
      try {
        const source = body instanceof Readable ? body : Readable.from([Buffer.from(body)]);
        // Why flush: the row naming this object commits next; a crash must not leave it pointing at nothing.
        await pipeline(source, hasher, fh.createWriteStream({ flush: true }));
      } finally {
        await fh.close().catch(() => {});
      }
      const stored = hasher.digest();
      if (stored.size !== size) throw new Error(`expected ${size} bytes, got ${stored.size}`);
      await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await link(partial, target).catch((err: { code?: string }) => {
        throw err?.code === 'EEXIST' ? new ObjectExistsError(key) : err;
      });
      return stored;
    } catch (err) {
      throw errorOf(err, key);
    } finally {
      if (written) await unlink(partial).catch(() => {});
    }
  }

  async get(key: string, range?: ByteRange): Promise<ObjectRead> {
    const file = this.pathOf(key);
    const fh = await open(file, 'r').catch((err: unknown) => {
      throw errorOf(err, key);
    });
    const { size } = await fh.stat();
    if (range && (range.start >= size || range.start > range.end)) {
      await fh.close();
      throw new RangeNotSatisfiableError(size);
    }
    const bounded = range ? { start: range.start, end: Math.min(range.end, size - 1) } : undefined;
    return {
      body: fh.createReadStream({ ...(bounded ?? {}), autoClose: true }),
      size,
      ...(bounded ? { range: bounded } : {}),
    };
  }

  async head(key: string): Promise<{ size: number } | null> {
    try {
      const info = await stat(this.pathOf(key));
      return { size: info.size };
    } catch (err) {
      const mapped = errorOf(err, key);
      if (mapped instanceof ObjectNotFoundError) return null;
      throw mapped;
    }
  }

  async remove(key: string): Promise<void> {
    try {
      await rm(this.pathOf(key), { force: true });
    } catch (err) {
      throw errorOf(err, key);
    }
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    if (!prefix.endsWith('/')) throw new TypeError('a list prefix ends in /');
    assertObjectKey(prefix.slice(0, -1));
    yield* this.walk(prefix.slice(0, -1));
  }

  private async *walk(key: string): AsyncIterable<ListedObject> {
    const entries = await readdir(this.pathOf(key), { withFileTypes: true }).catch((err: { code?: string }) => {
      if (err?.code === 'ENOENT' || err?.code === 'ENOTDIR') return [];
      throw errorOf(err, key);
    });
    // Why skip names that are no key segment: a folder may hold what the store never wrote (a leftover temporary file).
    for (const entry of entries.filter((e) => isObjectKey(e.name)).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = `${key}/${entry.name}`;
      if (entry.isDirectory()) yield* this.walk(child);
      else if (entry.isFile()) yield { key: child, size: (await stat(this.pathOf(child))).size };
    }
  }

  async close(): Promise<void> {}
}
