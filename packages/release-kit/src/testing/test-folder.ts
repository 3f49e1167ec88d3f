import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A temporary folder for one test, with a tree builder: `folder.write({ 'a/b.txt': 'x' })`. */
export interface TestFolder {
  dir: string;
  path(...parts: string[]): string;
  write(files: Record<string, string | Uint8Array>, mode?: number): void;
  remove(): void;
}

const RAM_DISK = '/dev/shm';
const RAM_DISK_ROOM = 1024 ** 3;

/** A RAM disk with a gigabyte free, or null (none here, or a container's small one). */
function ramDisk(): string | null {
  try {
    accessSync(RAM_DISK, constants.W_OK);
    const { bavail, bsize } = statfsSync(RAM_DISK);
    return bavail * bsize >= RAM_DISK_ROOM ? RAM_DISK : null;
  } catch {
    return null;
  }
}

/**
 * A fresh folder under the system's temporary folder; with `inMemory`, on a RAM disk where there is
 * one with room. Why: code that syncs every write to disk (the installer's journal and file swap)
 * otherwise waits on every other writer of a shared disk, and in-process tests check what is
 * written, not that a disk keeps it through a power loss.
 */
export function createTestFolder(prefix = 'release-kit-', options: { inMemory?: boolean } = {}): TestFolder {
  const root = (options.inMemory && ramDisk()) || tmpdir();
  const dir = mkdtempSync(path.join(root, prefix));
  return {
    dir,
    path: (...parts) => path.join(dir, ...parts),
    write(files, mode) {
      for (const [relative, content] of Object.entries(files)) {
        const file = path.join(dir, relative);
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, content, mode === undefined ? undefined : { mode });
      }
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
