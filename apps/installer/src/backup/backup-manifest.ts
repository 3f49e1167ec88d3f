import { OperatorError } from '@service/cli-kit';
import { createHash } from 'node:crypto';
import { formatSha256Sums, isReleaseVersion } from '@service/release-kit';
import type { SchemaHeads } from '../install-dir/install-layout.ts';

export const BACKUP_FORMAT = 'service-backup-v1';
export const BACKUP_MANIFEST_ENTRY = 'backup-manifest.json';
export const BACKUP_SUMS_ENTRY = 'SHA256SUMS';

/** One part of a backup: a single file, or a folder of files (then `sha256` is the digest of its SHA256SUMS lines). */
export interface BackupPart {
  name: string;
  path: string;
  kind: 'file' | 'folder';
  files: number;
  bytes: number;
  sha256: string;
}

/** `backup-manifest.json`, the first entry of every backup archive. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  /** The release the backup was taken on; only that release's package restores it. */
  version: string;
  createdAt: string;
  schemaHeads: SchemaHeads;
  parts: BackupPart[];
  /** Digest of the SHA256SUMS entry, which lists every file of the archive but these two. */
  sumsSha256: string;
}

export function parseBackupManifest(text: string, source: string): BackupManifest {
  const hint = 'Use a backup written by `install.sh backup`.';
  let value: Partial<BackupManifest>;
  try {
    value = JSON.parse(text) as Partial<BackupManifest>;
  } catch {
    throw new OperatorError(`${source}: ${BACKUP_MANIFEST_ENTRY} is not JSON`, { hint });
  }
  if (value.format !== BACKUP_FORMAT)
    throw new OperatorError(`${source} is not a backup of this service (format ${JSON.stringify(value.format)})`, {
      hint,
    });
  if (typeof value.version !== 'string' || !isReleaseVersion(value.version))
    throw new OperatorError(`${source}: ${BACKUP_MANIFEST_ENTRY} names no valid version`, { hint });
  if (
    typeof value.createdAt !== 'string' ||
    !Array.isArray(value.parts) ||
    typeof value.sumsSha256 !== 'string' ||
    typeof value.schemaHeads !== 'object'
  ) {
    throw new OperatorError(`${source}: ${BACKUP_MANIFEST_ENTRY} is incomplete`, { hint });
  }
  return value as BackupManifest;
}

/** `backups/service-<version>-<YYYYMMDDTHHMMSSZ>.tar.gz` */
export function backupFileName(version: string, at: Date): string {
  return `service-${version}-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}.tar.gz`;
}

const NAME = /^service-(.+)-(\d{8}T\d{6}Z)\.tar\.gz$/;

/** Version and time from a backup's file name, or null for any other file. */
export function parseBackupFileName(name: string): { version: string; createdAt: Date } | null {
  const match = NAME.exec(name);
  if (!match || !isReleaseVersion(match[1]!)) return null;
  const t = match[2]!;
  const createdAt = new Date(
    `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(9, 11)}:${t.slice(11, 13)}:${t.slice(13, 15)}Z`,
  );
  return Number.isNaN(createdAt.getTime()) ? null : { version: match[1]!, createdAt };
}

/** A folder part's digest: of its SHA256SUMS lines, so it changes with any file's name or content. */
export function folderPart(
  name: string,
  prefix: string,
  files: Array<{ name: string; sha256: string; size: number }>,
): BackupPart {
  const listing = files.length === 0 ? '' : formatSha256Sums(files.map((f) => ({ path: f.name, sha256: f.sha256 })));
  return {
    name,
    path: `${prefix}/`,
    kind: 'folder',
    files: files.length,
    bytes: files.reduce((n, f) => n + f.size, 0),
    sha256: createHash('sha256').update(listing).digest('hex'),
  };
}
