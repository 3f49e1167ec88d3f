import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestFolder, type TestFolder } from '@service/release-kit/testing';
import { acquireInstallLock, inspectLock, LOCK_FILE } from './install-lock.ts';

const owner = { pid: 4242, command: 'upgrade', startedAt: '2026-11-23T10:00:00.000Z', host: 'box' };

describe('inspectLock', () => {
  it.each([
    [null, 'free'],
    [JSON.stringify(owner), 'held'],
    [JSON.stringify({ ...owner, pid: 9 }), 'stale'],
    [JSON.stringify({ ...owner, pid: 9, host: 'other-box' }), 'held'],
    ['{"garbage":', 'unreadable'],
    ['{"pid":"1"}', 'unreadable'],
  ])('%s is %s', (content, kind) => {
    expect(inspectLock(content, { host: 'box', isAlive: (pid) => pid === 4242 }).kind).toBe(kind);
  });
});

describe('acquireInstallLock', () => {
  let folder: TestFolder;
  beforeEach(() => (folder = createTestFolder('lock-')));
  afterEach(() => folder.remove());

  it('writes pid, command and start time, and removes the lock on release', async () => {
    const lock = await acquireInstallLock(folder.dir, 'backup', {
      now: new Date('2026-11-23T10:00:00Z'),
      pid: 100,
      host: 'box',
      isAlive: () => true,
    });
    expect(JSON.parse(readFileSync(path.join(folder.dir, LOCK_FILE), 'utf8'))).toEqual({
      pid: 100,
      command: 'backup',
      startedAt: '2026-11-23T10:00:00.000Z',
      host: 'box',
    });
    await lock.release();
    await acquireInstallLock(folder.dir, 'status', { now: new Date(), pid: 101, host: 'box', isAlive: () => true });
  });

  it('refuses a second run, saying who holds the lock and since when', async () => {
    writeFileSync(path.join(folder.dir, LOCK_FILE), JSON.stringify(owner));
    await expect(
      acquireInstallLock(folder.dir, 'backup', { now: new Date(), pid: 1, host: 'box', isAlive: () => true }),
    ).rejects.toMatchObject({
      message:
        `another installer run holds ${path.join(folder.dir, LOCK_FILE)}: \`upgrade\` ` +
        `(pid 4242 on box) since 2026-11-23T10:00:00.000Z`,
      exitCode: 75,
    });
  });

  it('takes over a stale lock (dead pid) and says so', async () => {
    writeFileSync(path.join(folder.dir, LOCK_FILE), JSON.stringify(owner));
    const lock = await acquireInstallLock(folder.dir, 'backup', {
      now: new Date(),
      pid: 1,
      host: 'box',
      isAlive: () => false,
    });
    expect(lock.tookOverFrom).toEqual(owner);
  });
});
