import { existsSync } from 'node:fs';
import { readdir, readFile, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { listTree, ReleaseKitError, verifyPackage } from '@service/release-kit';
import { readArchive } from '../backup/backup-archive.ts';
import { BACKUP_MANIFEST_ENTRY, parseBackupManifest, type BackupManifest } from '../backup/backup-manifest.ts';
import { listBackups } from '../backup/list-backups.ts';
import type { CommandName, DiskFacts, Facts } from '../checks/preflight-check.ts';
import { parseEnvFile, type ParsedEnv } from '../install-dir/env-file.ts';
import { readInstalledRelease } from '../install-dir/installed-release.ts';
import type { InstallerConfig } from '../installer-config.ts';
import type { ServiceRuntime } from '../runtime/service-runtime.ts';
import type { Reporter } from '../ui/reporter.ts';

export interface GatherOptions {
  command: CommandName;
  home: string;
  now: Date;
  runtime: ServiceRuntime;
  config: InstallerConfig;
  reporter: Reporter;
  packageDir: string | null;
  backupFile: string | null;
}

/**
 * Collects, read-only, everything the pre-flight checks judge: the installation, the running
 * service, the engine, free space, and the package (signature first, then every file against
 * SHA256SUMS, with a progress bar: images are large) and the backup's manifest when given.
 */
export async function gatherFacts(options: GatherOptions): Promise<Facts> {
  const { home, runtime, config, reporter } = options;
  const present = existsSync(path.join(home, 'compose.yaml')) && existsSync(path.join(home, '.env'));
  const envText = await readFile(path.join(home, '.env'), 'utf8').catch(() => null);
  const env: ParsedEnv | null = envText === null ? null : parseEnvFile(envText);
  const release = await readInstalledRelease(home, config.trustedKeys);
  const runningVersion = present ? await readRunningVersion(runtime) : null;
  const engine = await runtime.checkEngine();

  let pkg: Facts['package'] = null;
  if (options.packageDir) {
    const dir = options.packageDir;
    const step = reporter.step(`Verify the package ${dir}`);
    const total = await treeBytes(dir);
    const bar = reporter.bar('checksums', total, 'bytes');
    let done = 0;
    try {
      const onBytes = (n: number) => {
        done += n;
        bar.update(done);
      };
      const verified = await verifyPackage(dir, config.trustedKeys, { onBytes });
      bar.stop();
      pkg = { dir, verified, error: null };
      step.done(`${verified.manifest.version}, signed by key ${verified.signer.keyId}`);
    } catch (err) {
      bar.stop();
      if (!(err instanceof ReleaseKitError)) throw err;
      pkg = { dir, verified: null, error: { code: err.code, message: err.message, hint: err.hint } };
      step.fail(err.message);
    }
  }

  let backup: Facts['backup'] = null;
  if (options.backupFile) {
    try {
      backup = { file: options.backupFile, manifest: await readBackupManifest(options.backupFile), error: null };
    } catch (err) {
      backup = { file: options.backupFile, manifest: null, error: (err as Error).message };
    }
  }

  const facts: Facts = {
    command: options.command,
    now: options.now,
    home,
    installation: { present, env, release, runningVersion, backups: await listBackups(home) },
    engine,
    disks: [],
    package: pkg,
    backup,
  };
  facts.disks = await measureDisks(facts, runtime);
  return facts;
}

async function readRunningVersion(runtime: ServiceRuntime): Promise<string | null> {
  const answer = await runtime.probe('/api/version');
  if (answer?.status !== 200) return null;
  try {
    const version = (JSON.parse(answer.body) as { version?: unknown }).version;
    return typeof version === 'string' ? version : null;
  } catch {
    return null;
  }
}

/** Only the first entry of a backup (its manifest): enough to refuse another version at once. */
export async function readBackupManifest(file: string): Promise<BackupManifest> {
  let manifest: BackupManifest | null = null;
  await readArchive(file, async (entry) => {
    if (entry.name !== BACKUP_MANIFEST_ENTRY)
      throw new Error(`${file} does not start with ${BACKUP_MANIFEST_ENTRY}; it is not a backup of this service`);
    if (entry.size > 1024 * 1024) throw new Error(`${file}: ${BACKUP_MANIFEST_ENTRY} is too large`);
    const chunks: Buffer[] = [];
    for await (const chunk of entry.content) chunks.push(chunk as Buffer);
    manifest = parseBackupManifest(Buffer.concat(chunks).toString('utf8'), file);
    return 'stop';
  });
  if (manifest === null) throw new Error(`${file} holds no ${BACKUP_MANIFEST_ENTRY}`);
  return manifest;
}

/** Free space where this command writes, and what it needs there. */
async function measureDisks(facts: Facts, runtime: ServiceRuntime): Promise<DiskFacts[]> {
  const home = existsSync(facts.home) ? facts.home : path.dirname(facts.home);
  const disks: DiskFacts[] = [];
  const free = async (dir: string) => {
    const s = await statfs(dir);
    return s.bavail * s.bsize;
  };
  const manifest = facts.package?.verified?.manifest;
  const MiB = 1024 * 1024;
  if ((facts.command === 'install' || facts.command === 'upgrade' || facts.command === 'restore') && manifest) {
    const imageBytes = manifest.images.reduce((n, i) => n + i.bytes, 0);
    const store = await runtime.imageStoreDir();
    // Why twice: an engine unpacks the layers of the archive it loads.
    disks.push({
      dir: store,
      freeBytes: await free(store),
      neededBytes: imageBytes * 2,
      purpose: 'loading the images',
    });
    const backupBytes = facts.command === 'upgrade' ? await treeBytes(path.join(facts.home, 'data')) : 0;
    disks.push({
      dir: home,
      freeBytes: await free(home),
      neededBytes: 256 * MiB + backupBytes,
      purpose:
        facts.command === 'upgrade'
          ? 'the backup taken before the upgrade, staging the release files and logs'
          : 'staging the release files and logs',
    });
  }
  if (facts.command === 'backup') {
    const data = await treeBytes(path.join(facts.home, 'data'));
    disks.push({
      dir: home,
      freeBytes: await free(home),
      neededBytes: data + 256 * MiB,
      purpose: 'the dumps and the archive of a backup',
    });
  }
  if (facts.command === 'restore' && facts.backup) {
    const size = (await stat(facts.backup.file).catch(() => null))?.size ?? 0;
    disks.push({
      dir: home,
      freeBytes: await free(home),
      neededBytes: size * 4 + 256 * MiB,
      purpose: 'extracting the backup and restoring beside the current data',
    });
  }
  if (facts.command === 'status' && existsSync(home))
    disks.push({ dir: home, freeBytes: await free(home), neededBytes: 0, purpose: 'status' });
  return disks;
}

/** Bytes of every file below a folder (0 when it does not exist or cannot be read). */
async function treeBytes(dir: string): Promise<number> {
  if (!existsSync(dir)) return 0;
  try {
    const { files } = await listTree(dir);
    let total = 0;
    for (const f of files) total += (await stat(path.join(dir, f)).catch(() => null))?.size ?? 0;
    return total;
  } catch {
    const entries = await readdir(dir).catch(() => []);
    return entries.length;
  }
}
