import { chmod, readdir, rename, utimes } from 'node:fs/promises';
import path from 'node:path';
import * as tar from 'tar';

/**
 * Writes `<outFile>` as a gzip tar of `<root>/<topDir>`, byte for byte the same for the same
 * content: entries sorted, every mtime `mtime`, owner 0:0 with no names, modes 0755 for folders
 * and the listed executables and 0644 otherwise, and gzip without a name or time in its header.
 */
export async function writeReproducibleTarball(options: {
  root: string;
  topDir: string;
  outFile: string;
  mtime: Date;
  executables: readonly string[];
}): Promise<void> {
  const entries = [
    options.topDir,
    ...(await listSorted(path.join(options.root, options.topDir))).map((p) => `${options.topDir}/${p}`),
  ];
  const executables = new Set(options.executables.map((e) => `${options.topDir}/${e}`));
  for (const entry of entries) {
    const absolute = path.join(options.root, entry);
    const isDir =
      entry === options.topDir ||
      (await readdir(absolute).then(
        () => true,
        () => false,
      ));
    await chmod(absolute, isDir || executables.has(entry) ? 0o755 : 0o644);
    await utimes(absolute, options.mtime, options.mtime);
  }
  const partial = `${options.outFile}.partial`;
  await tar.c(
    {
      cwd: options.root,
      file: partial,
      gzip: { level: 6 },
      portable: true,
      noDirRecurse: true,
      mtime: options.mtime,
      noPax: true,
      // Why: `portable` leaves folders without a time (read back as 1970); they get the release time too.
      onWriteEntry: (entry) => {
        entry.noMtime = false;
      },
    },
    entries,
  );
  await rename(partial, options.outFile);
}

async function listSorted(dir: string, relative = ''): Promise<string[]> {
  const result: string[] = [];
  const entries = (await readdir(path.join(dir, relative), { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const entry of entries) {
    const rel = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isSymbolicLink()) throw new Error(`${rel} is a link; a package holds regular files only`);
    result.push(rel);
    if (entry.isDirectory()) result.push(...(await listSorted(dir, rel)));
  }
  return result;
}
