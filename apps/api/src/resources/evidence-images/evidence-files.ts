import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Evidence bytes on disk under FILES_DIR, named by a random key (never a client-supplied name),
 * sharded by its first two characters. Writes go through a temporary file and a rename.
 */
export class EvidenceFiles {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    if (!/^[0-9a-f]{40}$/.test(key)) throw new Error('invalid storage key');
    return path.join(this.root, 'evidence', key.slice(0, 2), key);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const key = randomBytes(20).toString('hex');
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const temp = `${target}.tmp-${process.pid}`;
    await writeFile(temp, bytes, { mode: 0o600 });
    await rename(temp, target);
    return key;
  }

  read(key: string): Promise<Buffer> {
    return readFile(this.pathOf(key));
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
