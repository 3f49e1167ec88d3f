import { readFile } from 'node:fs/promises';
import { OperatorError } from '@service/cli-kit';

/** Reads a text file named on the command line, turning "not there" into an actionable error. */
export async function readInputFile(file: string, what: string, hint: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new OperatorError(`${what} ${file} does not exist`, { hint });
    if (code === 'EACCES')
      throw new OperatorError(`${what} ${file} cannot be read (permission denied)`, {
        hint: 'Run as the user that owns the file.',
      });
    if (code === 'EISDIR') throw new OperatorError(`${what} ${file} is a directory`, { hint });
    throw err;
  }
}
