import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat, chmod, chown } from 'node:fs/promises';
import path from 'node:path';

import { ENV_KEY } from '@service/config';

export { parseEnvFile, type EnvProblem, type ParsedEnv } from '@service/config';

/**
 * `.env` text with KEY set to `value`, every other byte as it was: each line assigning KEY has its
 * value replaced (keeping `export`, spacing before `=` and the line ending); with none, one line
 * is appended (after a line break if the file did not end with one). The value must be bare-safe.
 */
export function setEnvValue(text: string, key: string, value: string): string {
  if (!ENV_KEY.test(key)) throw new RangeError(`invalid key ${key}`);
  if (!/^[A-Za-z0-9._+\-/:@=,]*$/.test(value)) throw new RangeError(`value for ${key} needs quoting; not supported`);
  const pattern = new RegExp(`^(\\s*(?:export\\s+)?${key}\\s*=[ \\t]*)([^\\r\\n]*)(\\r?)$`, 'gm');
  let replaced = false;
  const next = text.replace(pattern, (_m, head: string, _old: string, cr: string) => {
    replaced = true;
    return `${head}${value}${cr}`;
  });
  if (replaced) return next;
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const separator = text === '' || text.endsWith('\n') ? '' : newline;
  return `${text}${separator}${key}=${value}${newline}`;
}

/**
 * Replaces a file through a temporary file in the same folder and a rename, so a reader (or a
 * crash) sees the old or the new content, never half. Mode and owner of the old file are kept.
 */
export async function replaceFileAtomically(file: string, content: string | Uint8Array): Promise<void> {
  const before = await stat(file).catch(() => null);
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', before ? before.mode & 0o777 : 0o600);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (before) {
      await chmod(temp, before.mode & 0o777);
      if (process.getuid?.() === 0) await chown(temp, before.uid, before.gid);
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
