import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { OperatorError } from '@service/cli-kit';
import { formatSha256Sums, sha256File, type FileDigest } from '@service/release-kit';
import { BACKUPS_DIR, DATABASES, FILES_DIR, type SchemaHeads } from '../install-dir/install-layout.ts';
import type { ServiceRuntime } from '../runtime/service-runtime.ts';
import type { Reporter } from '../ui/reporter.ts';
import { writeArchive, type ArchiveEntrySource } from './backup-archive.ts';
import {
  BACKUP_FORMAT,
  BACKUP_MANIFEST_ENTRY,
  BACKUP_SUMS_ENTRY,
  backupFileName,
  folderPart,
  type BackupManifest,
  type BackupPart,
} from './backup-manifest.ts';
import { verifyBackup } from './verify-backup.ts';
import { formatBytes } from '../ui/human-units.ts';

/** The operator's configuration a backup keeps: path in the installation, whether it must exist. */
export const CONFIG_PARTS = [
  { name: '.env', path: '.env', kind: 'file', required: true },
  { name: 'proxy configuration', path: 'docker/Caddyfile', kind: 'file', required: false },
  { name: 'certificates', path: 'docker/certs', kind: 'folder', required: false },
  { name: 'compose override', path: 'compose.override.yaml', kind: 'file', required: false },
] as const;

export interface CreatedBackup {
  file: string;
  bytes: number;
  manifest: BackupManifest;
}

interface SourceFile {
  /** Path inside the archive. */
  name: string;
  absolute: string;
  size: number;
  sha256: string;
}

/**
 * Writes `backups/service-<version>-<time>.tar.gz`: a dump of each database, the file storage,
 * the operator's configuration (.env, proxy configuration, certificates, compose override) and
 * backup-manifest.json, then verifies what it wrote (every checksum, and that each dump can be
 * listed) before giving it its final name. Nothing of a failed backup keeps a backup's name.
 */
export async function createBackup(options: {
  home: string;
  version: string;
  runtime: ServiceRuntime;
  reporter: Reporter;
  now: Date;
}): Promise<CreatedBackup> {
  const { home, runtime, reporter } = options;
  const backupsDir = path.join(home, BACKUPS_DIR);
  await mkdir(backupsDir, { recursive: true, mode: 0o700 });
  const finalFile = path.join(backupsDir, backupFileName(options.version, options.now));
  if (existsSync(finalFile))
    throw new OperatorError(`${finalFile} already exists`, { hint: 'Wait a second and run the backup again.' });
  const staging = path.join(backupsDir, `.partial-${path.basename(finalFile, '.tar.gz')}`);
  const partialArchive = `${staging}.tar.gz`;
  // Why all of them: a backup killed earlier (power loss, kill -9) left its parts; the lock
  // guarantees no other backup is running now.
  for (const name of await readdir(backupsDir))
    if (name.startsWith('.partial-')) await rm(path.join(backupsDir, name), { recursive: true, force: true });
  await mkdir(path.join(staging, 'databases'), { recursive: true, mode: 0o700 });
  try {
    let step = reporter.step('Start the database');
    await runtime.startDatabase();
    const schemaHeads = await readSchemaHeads(runtime);
    // Why: a backup is restored only by the package of its version; one labelled with a version
    // its data does not have (a half-done upgrade) would restore into the wrong release.
    const recorded = (await runtime.sql(DATABASES[0].name, 'select version from installation where id = 1')).trim();
    if (recorded !== '' && recorded !== options.version) {
      step.fail(`the databases record version ${recorded}`);
      throw new OperatorError(
        `the databases record version ${recorded}, but .env says SERVICE_VERSION=${options.version}; a backup ` +
          'would carry the wrong version',
        {
          hint:
            'An earlier upgrade or restore did not finish: run `./install.sh status` and follow what it says ' +
            '(usually `./install.sh recover`), then back up.',
        },
      );
    }
    step.done(`schema heads ${Object.values(schemaHeads).filter(Boolean).length} of 3 read`);

    const parts: BackupPart[] = [];
    const sources: SourceFile[] = [];
    for (const db of DATABASES) {
      const estimate = Number((await runtime.sql(db.name, `select pg_database_size(current_database())`)).trim()) || 1;
      step = reporter.step(`Dump the database ${db.name}`);
      const bar = reporter.bar(`dump ${db.name}`, estimate, 'bytes');
      const file = path.join(staging, db.dump);
      await runtime.dumpDatabase(db.name, file, (bytes) => bar.update(bytes, Math.max(estimate, bytes)));
      bar.stop();
      const size = (await stat(file)).size;
      const sha256 = await sha256File(file);
      sources.push({ name: db.dump, absolute: file, size, sha256 });
      parts.push({ name: `database ${db.key}`, path: db.dump, kind: 'file', files: 1, bytes: size, sha256 });
      step.done(formatBytes(size));
    }

    step = reporter.step('Read the file storage');
    const storage = await collectFolder(path.join(home, FILES_DIR), 'files', reporter);
    sources.push(...storage);
    parts.push(folderPart('file storage', 'files', storage));
    step.done(`${storage.length} files, ${formatBytes(storage.reduce((n, f) => n + f.size, 0))}`);

    step = reporter.step('Read the configuration');
    for (const part of CONFIG_PARTS) {
      const absolute = path.join(home, part.path);
      const archivePath = `config/${part.path}`;
      if (!existsSync(absolute)) {
        if (part.required)
          throw new OperatorError(`${absolute} is missing`, {
            hint: 'Restore it (the installation cannot start without it), then back up again.',
          });
        continue;
      }
      if (part.kind === 'file') {
        const file = await describeFile(absolute, archivePath);
        sources.push(file);
        parts.push({
          name: part.name,
          path: archivePath,
          kind: 'file',
          files: 1,
          bytes: file.size,
          sha256: file.sha256,
        });
      } else {
        const files = await collectFolder(absolute, archivePath, null);
        sources.push(...files);
        parts.push(folderPart(part.name, archivePath, files));
      }
    }
    step.done(
      parts
        .filter((p) => p.path.startsWith('config/'))
        .map((p) => p.name)
        .join(', '),
    );

    const sums = formatSha256Sums(sources.map((s): FileDigest => ({ path: s.name, sha256: s.sha256 })));
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      version: options.version,
      createdAt: options.now.toISOString(),
      schemaHeads,
      parts,
      sumsSha256: createHash('sha256').update(sums).digest('hex'),
    };

    step = reporter.step('Write the archive');
    const total = sources.reduce((n, s) => n + s.size, 0);
    const bar = reporter.bar('archive', total, 'bytes');
    let written = 0;
    const mtime = options.now;
    const entries: ArchiveEntrySource[] = [
      bufferEntry(BACKUP_MANIFEST_ENTRY, `${JSON.stringify(manifest, null, 2)}\n`, mtime),
      bufferEntry(BACKUP_SUMS_ENTRY, sums, mtime),
      ...sources.map(
        (s): ArchiveEntrySource => ({
          name: s.name,
          size: s.size,
          mode: 0o600,
          mtime,
          open: () => createReadStream(s.absolute),
        }),
      ),
    ];
    await writeArchive(partialArchive, entries, (n) => {
      written += n;
      bar.update(written);
    });
    bar.stop();
    step.done(formatBytes((await stat(partialArchive)).size));

    step = reporter.step('Verify the backup');
    const checked = await verifyBackup(partialArchive, runtime, path.join(staging, 'verify'));
    step.done(`${checked.files} files match their checksums; ${checked.dumpEntries} dump entries listed`);

    await rename(partialArchive, finalFile);
    const bytes = (await stat(finalFile)).size;
    return { file: finalFile, bytes, manifest };
  } catch (err) {
    await rm(partialArchive, { force: true });
    throw err;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Last applied migration of each database, as knex records it. */
export async function readSchemaHeads(runtime: ServiceRuntime): Promise<SchemaHeads> {
  const heads = {} as SchemaHeads;
  for (const db of DATABASES) {
    const out = await runtime.sql(db.name, `select name from knex_migrations order by id desc limit 1`);
    heads[db.key] = out.trim() === '' ? null : out.trim();
  }
  return heads;
}

async function describeFile(absolute: string, name: string): Promise<SourceFile> {
  const info = await lstat(absolute);
  if (!info.isFile())
    throw new OperatorError(`${absolute} is not a regular file`, {
      hint: 'Replace the link with the file itself, then back up again.',
    });
  return { name, absolute, size: info.size, sha256: await sha256File(absolute) };
}

/**
 * Every regular file below a folder, sorted; a link or special file stops the backup (it would not be restorable as
 * such).
 */
async function collectFolder(dir: string, archivePrefix: string, reporter: Reporter | null): Promise<SourceFile[]> {
  if (!existsSync(dir)) return [];
  const names = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .map((e) => ({ entry: e, relative: path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/') }))
    .sort((a, b) => (a.relative < b.relative ? -1 : 1));
  const files = names.filter((n) => !n.entry.isDirectory());
  const others = files.filter((n) => !n.entry.isFile());
  if (others.length > 0) {
    throw new OperatorError(
      `${path.join(dir, others[0]!.relative)} is not a regular file; backups hold regular files only`,
      { hint: 'Replace links with the files themselves, then back up again.' },
    );
  }
  const totalBytes = (await Promise.all(files.map((f) => stat(path.join(dir, f.relative)).then((s) => s.size)))).reduce(
    (a, b) => a + b,
    0,
  );
  const bar = reporter && files.length > 0 ? reporter.bar('checksums of stored files', totalBytes, 'bytes') : null;
  let done = 0;
  const result: SourceFile[] = [];
  for (const f of files) {
    const absolute = path.join(dir, f.relative);
    const size = (await stat(absolute)).size;
    result.push({ name: `${archivePrefix}/${f.relative}`, absolute, size, sha256: await sha256File(absolute) });
    done += size;
    bar?.update(done);
  }
  bar?.stop();
  return result;
}

function bufferEntry(name: string, text: string, mtime: Date): ArchiveEntrySource {
  const bytes = Buffer.from(text, 'utf8');
  return { name, size: bytes.length, mode: 0o600, mtime, open: () => Readable.from([bytes]) };
}
