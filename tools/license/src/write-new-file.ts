import { writeFile } from 'node:fs/promises';
import { OperatorError } from '@service/cli-kit';

/**
 * Writes a file that must not exist yet. Why 'wx': a key or licence overwritten by mistake cannot
 * be recovered, and the exclusive flag also closes the gap between checking and writing.
 */
export async function writeNewFile(file: string, content: string, mode: number): Promise<void> {
  try {
    await writeFile(file, content, { flag: 'wx', mode });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new OperatorError(`${file} already exists and is never overwritten`, {
        hint: 'Choose another path, or move the old file away first.',
      });
    }
    throw err;
  }
}
