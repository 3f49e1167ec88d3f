import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { listTree } from '@service/release-kit';
import type { ServiceRuntime } from '../runtime/service-runtime.ts';
import { BACKUPS_DIR, DATABASES, FILES_DIR } from './install-layout.ts';

/** Something an upgrade or restore kept aside (or a crashed run left), that nothing uses any more. */
export interface Leftover {
  kind: 'folder' | 'database';
  /** Relative to the installation directory, or the database's name. */
  name: string;
  /** What it is, for a person. */
  what: string;
  bytes: number;
  /** When it was made: from the time in its name, or the folder's. */
  createdAt: Date;
}

const STAMP = /(\d{14})$/;

/** `20261123020000` (UTC) as a date. */
function stampDate(stamp: string): Date {
  return new Date(
    `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(8, 10)}:${stamp.slice(10, 12)}:${stamp.slice(12, 14)}Z`,
  );
}

/**
 * Every leftover of an installation with its size: release files an upgrade or restore replaced
 * (`.previous-<version>/`), what a restore kept (`.before-restore-<time>/`,
 * `data/app/files.before-restore-<time>/`, databases `*_before_<time>`), and what a crashed run
 * left (`.staging-*`, `backups/.partial-*`, `backups/.restore-*`). The databases are listed only
 * when the database answers (`databases: false` skips them). Read-only.
 */
export async function findLeftovers(
  home: string,
  runtime: ServiceRuntime | null,
  log: (line: string) => void = () => {},
): Promise<{ leftovers: Leftover[]; databasesListed: boolean }> {
  const leftovers: Leftover[] = [];
  const folder = async (relative: string, what: string, stamp: string | null) => {
    const absolute = path.join(home, relative);
    const info = await stat(absolute).catch(() => null);
    if (!info) return;
    leftovers.push({
      kind: 'folder',
      name: `${relative}/`,
      what,
      bytes: await treeBytes(absolute),
      createdAt: stamp ? stampDate(stamp) : info.mtime,
    });
  };
  for (const name of (await readdir(home).catch(() => [] as string[])).sort()) {
    if (name.startsWith('.previous-')) await folder(name, `release files replaced by an upgrade or restore`, null);
    else if (name.startsWith('.before-restore-'))
      await folder(name, 'configuration kept by a restore', STAMP.exec(name)?.[1] ?? null);
    else if (name.startsWith('.staging-')) await folder(name, 'release files staged by an unfinished run', null);
  }
  const filesParent = path.dirname(path.join(home, FILES_DIR));
  const filesBase = path.basename(FILES_DIR);
  for (const name of (await readdir(filesParent).catch(() => [] as string[])).sort())
    if (name.startsWith(`${filesBase}.before-restore-`))
      await folder(
        path.join(path.dirname(FILES_DIR), name),
        'file storage kept by a restore',
        STAMP.exec(name)?.[1] ?? null,
      );
  for (const name of (await readdir(path.join(home, BACKUPS_DIR)).catch(() => [] as string[])).sort()) {
    if (name.startsWith('.partial-')) await folder(path.join(BACKUPS_DIR, name), 'part of an unfinished backup', null);
    else if (name.startsWith('.restore-'))
      await folder(
        path.join(BACKUPS_DIR, name),
        'backup unpacked by an unfinished restore',
        STAMP.exec(name)?.[1] ?? null,
      );
  }

  let databasesListed = false;
  if (runtime) {
    try {
      const names = DATABASES.map((d) => d.name);
      const out = await runtime.sql(
        'postgres',
        `select datname || '|' || pg_database_size(datname) from pg_database where datname like '%\\_before\\_%' or datname like '%\\_restore\\_%'`,
      );
      for (const line of out
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)) {
        const [name, size] = line.split('|') as [string, string];
        const match = /^(.+)_(before|restore)_(\d{14})$/.exec(name);
        if (!match || !names.includes(match[1] as (typeof names)[number])) continue;
        leftovers.push({
          kind: 'database',
          name,
          what: match[2] === 'before' ? 'database kept by a restore' : 'database made by an unfinished restore',
          bytes: Number(size) || 0,
          createdAt: stampDate(match[3]!),
        });
      }
      databasesListed = true;
    } catch (err) {
      log(`the databases kept by restores could not be listed: ${(err as Error).message}`);
    }
  }
  return { leftovers, databasesListed };
}

async function treeBytes(dir: string): Promise<number> {
  if (!existsSync(dir)) return 0;
  const info = await stat(dir);
  if (!info.isDirectory()) return info.size;
  try {
    const { files } = await listTree(dir);
    let total = 0;
    for (const f of files) total += (await stat(path.join(dir, f)).catch(() => null))?.size ?? 0;
    return total;
  } catch {
    return 0;
  }
}
