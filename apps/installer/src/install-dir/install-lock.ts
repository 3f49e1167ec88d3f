import { hostname } from 'node:os';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OperatorError } from '@service/cli-kit';

export const LOCK_FILE = '.installer.lock';

/** What the lock file holds: who runs, what, since when, where. */
export interface LockOwner {
  pid: number;
  command: string;
  startedAt: string;
  host: string;
}

export type LockState =
  | { kind: 'free' }
  | { kind: 'held'; owner: LockOwner }
  | { kind: 'stale'; owner: LockOwner }
  | { kind: 'unreadable' };

/**
 * Pure decision over an existing lock file's content. Held: the process is alive on this host.
 * Stale: it runs on this host and its pid is gone. A lock from another host (the installer ran
 * inside a container without the host's pid namespace, or on a shared disk) counts as held: its
 * owner cannot be checked from here.
 */
export function inspectLock(
  content: string | null,
  here: { host: string; isAlive: (pid: number) => boolean },
): LockState {
  if (content === null) return { kind: 'free' };
  let owner: LockOwner;
  try {
    owner = JSON.parse(content) as LockOwner;
    if (
      !Number.isInteger(owner.pid) ||
      typeof owner.command !== 'string' ||
      typeof owner.startedAt !== 'string' ||
      typeof owner.host !== 'string'
    )
      throw new Error('shape');
  } catch {
    return { kind: 'unreadable' };
  }
  if (owner.host === here.host && !here.isAlive(owner.pid)) return { kind: 'stale', owner };
  return { kind: 'held', owner };
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface HeldLock {
  /** Set when a stale lock was taken over: the owner that had died. */
  tookOverFrom: LockOwner | null;
  release(): Promise<void>;
}

/**
 * Takes the installation's exclusive lock (`<home>/.installer.lock`, created with O_EXCL), or
 * throws an OperatorError naming the command, pid and start time of the holder. A stale lock
 * (dead pid on this host) is taken over and reported.
 */
export async function acquireInstallLock(
  home: string,
  command: string,
  options: { now: Date; pid?: number; host?: string; isAlive?: (pid: number) => boolean } = { now: new Date() },
): Promise<HeldLock> {
  const file = path.join(home, LOCK_FILE);
  const owner: LockOwner = {
    pid: options.pid ?? process.pid,
    command,
    startedAt: options.now.toISOString(),
    host: options.host ?? hostname(),
  };
  const content = `${JSON.stringify(owner)}\n`;
  let tookOverFrom: LockOwner | null = null;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, content, { flag: 'wx', mode: 0o644 });
      return {
        tookOverFrom,
        release: async () => {
          // Why compare first: never delete a lock another run took over after ours was judged stale.
          const now = await readFile(file, 'utf8').catch(() => null);
          if (now === content) await rm(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const existing = await readFile(file, 'utf8').catch(() => null);
    const state = inspectLock(existing, { host: owner.host, isAlive: options.isAlive ?? isProcessAlive });
    if (state.kind === 'held') {
      const h = state.owner;
      throw new OperatorError(
        `another installer run holds ${file}: \`${h.command}\` (pid ${h.pid} on ${h.host}) since ${h.startedAt}`,
        {
          hint:
            `Wait for it to finish. If no installer runs any more (a crash on another host or ` +
            `in a container), delete ${file} and run the command again.`,
          exitCode: 75,
        },
      );
    }
    if (state.kind === 'unreadable') {
      throw new OperatorError(`${file} exists but cannot be read as an installer lock`, {
        hint: `If no installer runs, delete ${file} and run the command again.`,
        exitCode: 75,
      });
    }
    if (state.kind === 'stale') {
      tookOverFrom = state.owner;
      await rm(file, { force: true });
    }
  }
  throw new OperatorError(`could not take ${file}: another run took it at the same moment`, {
    hint: 'Run the command again.',
    exitCode: 75,
  });
}
