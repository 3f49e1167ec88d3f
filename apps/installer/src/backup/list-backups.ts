import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { BACKUPS_DIR } from '../install-dir/install-layout.ts';
import { parseBackupFileName } from './backup-manifest.ts';

export interface BackupFile {
  file: string;
  version: string;
  createdAt: Date;
  bytes: number;
}

/** The finished backups of an installation (not the `.partial` ones), newest first. */
export async function listBackups(home: string): Promise<BackupFile[]> {
  const dir = path.join(home, BACKUPS_DIR);
  const names = await readdir(dir).catch(() => [] as string[]);
  const backups: BackupFile[] = [];
  for (const name of names) {
    const parsed = parseBackupFileName(name);
    if (!parsed) continue;
    const info = await stat(path.join(dir, name)).catch(() => null);
    if (info?.isFile()) backups.push({ file: path.join(dir, name), ...parsed, bytes: info.size });
  }
  return backups.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}
