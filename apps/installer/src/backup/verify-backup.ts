import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OperatorError } from '@service/cli-kit';
import { compareWithSums, describeComparison, parseSha256Sums, type FileDigest } from '@service/release-kit';
import { DATABASES } from '../install-dir/install-layout.ts';
import type { ServiceRuntime } from '../runtime/service-runtime.ts';
import { readArchive } from './backup-archive.ts';
import {
  BACKUP_MANIFEST_ENTRY,
  BACKUP_SUMS_ENTRY,
  folderPart,
  parseBackupManifest,
  type BackupManifest,
} from './backup-manifest.ts';

const MAX_SMALL_ENTRY = 64 * 1024 * 1024;

export interface VerifiedBackup {
  manifest: BackupManifest;
  files: number;
  dumpEntries: number;
}

/**
 * Reads a backup archive from start to end and checks it: the manifest first, then SHA256SUMS,
 * then every file against its checksum (none missing, none extra), each part's checksum, and that
 * each database dump can be listed by pg_restore. `onManifest` sees the manifest before the rest
 * is read (restore refuses another version there). With `extractTo`, every file is also written
 * below that folder; otherwise only the dumps are, to `workDir`, to be listed.
 */
export async function verifyBackup(
  archive: string,
  runtime: ServiceRuntime,
  workDir: string,
  options: { extractTo?: string; onManifest?: (manifest: BackupManifest) => void } = {},
): Promise<VerifiedBackup> {
  const hint = 'Use another backup; this one is damaged, incomplete or was changed.';
  let manifest: BackupManifest | null = null;
  let listed: Map<string, string> | null = null;
  const found: FileDigest[] = [];
  const sizes = new Map<string, number>();
  const dumpFiles = new Map<string, string>();
  await mkdir(workDir, { recursive: true, mode: 0o700 });

  await readArchive(archive, async (entry) => {
    if (manifest === null) {
      if (entry.name !== BACKUP_MANIFEST_ENTRY)
        throw new OperatorError(
          `${archive} does not start with ${BACKUP_MANIFEST_ENTRY}; it is not a backup of this service`,
          { hint },
        );
      manifest = parseBackupManifest(await readSmall(entry.content, entry.size, entry.name), archive);
      options.onManifest?.(manifest);
      return;
    }
    if (listed === null) {
      if (entry.name !== BACKUP_SUMS_ENTRY)
        throw new OperatorError(`${archive} has no ${BACKUP_SUMS_ENTRY} after its manifest`, { hint });
      const text = await readSmall(entry.content, entry.size, entry.name);
      if (createHash('sha256').update(text).digest('hex') !== manifest.sumsSha256)
        throw new OperatorError(`${archive}: ${BACKUP_SUMS_ENTRY} does not match the manifest`, { hint });
      listed = parseSha256Sums(text, `${archive} ${BACKUP_SUMS_ENTRY}`);
      return;
    }
    const isDump = DATABASES.some((d) => d.dump === entry.name);
    const target = options.extractTo
      ? path.join(options.extractTo, entry.name)
      : isDump
        ? path.join(workDir, path.basename(entry.name))
        : null;
    const hash = createHash('sha256');
    const hasher = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    if (target) await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const sink = target
      ? createWriteStream(target, { flags: 'wx', mode: 0o600 })
      : new Writable({ write: (_chunk, _encoding, callback) => callback() });
    await pipeline(entry.content, hasher, sink);
    found.push({ path: entry.name, sha256: hash.digest('hex') });
    sizes.set(entry.name, entry.size);
    if (isDump && target) dumpFiles.set(entry.name, target);
  });

  if (manifest === null || listed === null)
    throw new OperatorError(`${archive} ends before its manifest and checksums`, { hint });
  const m = manifest as BackupManifest;
  const comparison = compareWithSums(listed, found);
  if (!comparison.ok)
    throw new OperatorError(`${archive} does not match its checksums: ${describeComparison(comparison)}`, { hint });
  for (const part of m.parts) {
    const files = found.filter((f) => (part.kind === 'file' ? f.path === part.path : f.path.startsWith(part.path)));
    const digest =
      part.kind === 'file'
        ? files[0]?.sha256
        : folderPart(
            part.name,
            part.path.replace(/\/$/, ''),
            files.map((f) => ({ name: f.path, sha256: f.sha256, size: sizes.get(f.path) ?? 0 })),
          ).sha256;
    if (digest !== part.sha256)
      throw new OperatorError(`${archive}: the part "${part.name}" does not match its checksum in the manifest`, {
        hint,
      });
  }
  let dumpEntries = 0;
  for (const db of DATABASES) {
    const file = dumpFiles.get(db.dump);
    if (!file) throw new OperatorError(`${archive} has no dump of ${db.name} (${db.dump})`, { hint });
    try {
      dumpEntries += await runtime.listDump(file);
    } catch (err) {
      throw new OperatorError(
        `the dump ${db.dump} in ${archive} cannot be read by pg_restore: ${(err as Error).message}`,
        { hint, cause: err },
      );
    }
  }
  if (!options.extractTo) await rm(workDir, { recursive: true, force: true });
  return { manifest: m, files: found.length, dumpEntries };
}

async function readSmall(content: AsyncIterable<Buffer>, size: number, name: string): Promise<string> {
  if (size > MAX_SMALL_ENTRY)
    throw new OperatorError(`${name} in the backup is ${size} bytes, too large to be a manifest`, {
      hint: 'Use a backup written by `install.sh backup`.',
    });
  const chunks: Buffer[] = [];
  for await (const chunk of content) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
