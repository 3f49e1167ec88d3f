// The contract every backend keeps, run against each: a directory, and a real S3 server (the test
// run's Ceph RADOS Gateway). Skipped with a message where the gateway is missing, except in CI.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LocalObjectStore,
  ObjectExistsError,
  ObjectNotFoundError,
  openObjectStore,
  RangeNotSatisfiableError,
  S3ObjectStore,
  StoreUnavailableError,
  type ObjectStore,
} from './index.ts';
import { s3TestSettings, s3TestsRun } from './testing/index.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'object-store-'));
  dirs.push(d);
  return d;
}

async function text(store: ObjectStore, key: string, range?: { start: number; end: number }) {
  const { body } = await store.get(key, range);
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

const key = (name: string) => `org/0f0e0d0c-0b0a-4908-8706-050403020100/evidence/${name}`;

const backends: Array<[string, () => Promise<ObjectStore>]> = [
  ['local directory', async () => new LocalObjectStore(tempDir())],
  ['S3 (Ceph RGW)', async () => new S3ObjectStore(await s3TestSettings())],
];

describe.each(backends)('%s', (name, make) => {
  const runs = name.startsWith('S3') ? s3TestsRun() : true;
  let store: ObjectStore;

  it.runIf(runs)(
    'passes its start check',
    async () => {
      store = await make();
      await store.check();
    },
    300_000,
  );

  it.runIf(runs)('writes once, reads back whole and by range, and says what it stored', async () => {
    const bytes = Buffer.from('0123456789abcdef');
    const stored = await store.put(key('aa/one'), bytes, bytes.length);
    expect(stored).toEqual({ size: 16, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(await text(store, key('aa/one'))).toBe('0123456789abcdef');
    expect(await text(store, key('aa/one'), { start: 2, end: 5 })).toBe('2345');
    expect(await text(store, key('aa/one'), { start: 10, end: 99 })).toBe('abcdef');
    const ranged = await store.get(key('aa/one'), { start: 4, end: 7 });
    expect(ranged.size).toBe(16);
    expect(ranged.range).toEqual({ start: 4, end: 7 });
    ranged.body.resume();
    await expect(store.get(key('aa/one'), { start: 16, end: 20 })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
    expect(await store.head(key('aa/one'))).toEqual({ size: 16 });
    // Written once: a second write under the key is refused and the first stays.
    await expect(store.put(key('aa/one'), Buffer.from('other'), 5)).rejects.toBeInstanceOf(ObjectExistsError);
    expect(await text(store, key('aa/one'))).toBe('0123456789abcdef');
  });

  it.runIf(runs)('streams a large body in and out', async () => {
    const size = 6 * 1024 * 1024 + 7;
    const chunk = randomBytes(64 * 1024);
    const hash = createHash('sha256');
    let sent = 0;
    const body = new Readable({
      read() {
        if (sent >= size) return this.push(null);
        const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += part.length;
        hash.update(part);
        this.push(part);
      },
    });
    const stored = await store.put(key('bb/large'), body, size);
    expect(stored).toEqual({ size, sha256: hash.digest('hex') });
    const back = createHash('sha256');
    let read = 0;
    for await (const c of (await store.get(key('bb/large'))).body) {
      back.update(c as Buffer);
      read += (c as Buffer).length;
    }
    expect(read).toBe(size);
    expect(back.digest('hex')).toBe(stored.sha256);
  });

  it.runIf(runs)('leaves nothing under the key when the body fails or is shorter than announced', async () => {
    let pushed = 0;
    const failing = new Readable({
      read() {
        if (pushed++ < 3) this.push(Buffer.alloc(64 * 1024, 1));
        else this.destroy(new Error('client went away'));
      },
    });
    await expect(store.put(key('cc/failing'), failing, 1024 * 1024)).rejects.toThrow();
    expect(await store.head(key('cc/failing'))).toBeNull();
    await expect(store.put(key('cc/short'), Buffer.from('short'), 10)).rejects.toThrow();
    expect(await store.head(key('cc/short'))).toBeNull();
  });

  it.runIf(runs)('lists by prefix in key order, removes idempotently, and answers not-found', async () => {
    for (const n of ['dd/b', 'dd/a', 'dd/c']) await store.put(key(n), Buffer.from(n), n.length);
    const listed: string[] = [];
    for await (const o of store.list(key('dd/'))) listed.push(o.key);
    expect(listed).toEqual([key('dd/a'), key('dd/b'), key('dd/c')]);
    await store.remove(key('dd/b'));
    await store.remove(key('dd/b'));
    expect(await store.head(key('dd/b'))).toBeNull();
    await expect(store.get(key('dd/b'))).rejects.toBeInstanceOf(ObjectNotFoundError);
    await store.close();
  });
});

describe('start checks name what is wrong, in one line', () => {
  it('a directory that cannot be used', async () => {
    const file = path.join(tempDir(), 'a-file');
    writeFileSync(file, 'x');
    await expect(openObjectStore({ kind: 'local', dir: file })).rejects.toThrow(
      new RegExp(`^file store local directory ${file}: not a directory$`),
    );
  });

  it('removes partial files a crashed write left, at start', async () => {
    const dir = tempDir();
    const store = new LocalObjectStore(dir);
    await store.check();
    const partial = path.join(dir, '.partial', '12345-left-by-a-crash');
    writeFileSync(partial, 'half a file');
    const { utimesSync } = await import('node:fs');
    utimesSync(partial, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    await (await openObjectStore({ kind: 'local', dir })).close();
    expect(readdirSync(path.join(dir, '.partial'))).toEqual([]);
  });

  const runs = s3TestsRun();
  it.runIf(runs)(
    'an S3 bucket that is missing, credentials that are wrong, a server that is not there',
    async () => {
      const good = await s3TestSettings();
      await expect(openObjectStore({ kind: 's3', ...good, bucket: 'no-such-bucket-here' })).rejects.toThrow(
        /^file store S3 bucket no-such-bucket-here under test-\w+\/ at http:\/\/127\.0\.0\.1:\d+: bucket missing$/,
      );
      await expect(
        openObjectStore({ kind: 's3', ...good, secretAccessKey: 'wrong-secret-key-0000000000000000' }),
      ).rejects.toThrow(/: bad credentials$/);
      const err = await openObjectStore({ kind: 's3', ...good, endpoint: 'http://127.0.0.1:9' }).catch(
        (e: unknown) => e,
      );
      expect((err as Error).message).toMatch(/: unreachable$/);
      expect((err as { cause?: unknown }).cause).toBeInstanceOf(StoreUnavailableError);
    },
    300_000,
  );
});
