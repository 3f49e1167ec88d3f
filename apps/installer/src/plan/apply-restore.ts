import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OperatorError } from '@service/cli-kit';
import { imageReference, SUMS_FILE, type PackageManifest } from '@service/release-kit';
import { CONFIG_PARTS } from '../backup/create-backup.ts';
import { verifyBackup } from '../backup/verify-backup.ts';
import { replaceFileAtomically, setEnvValue } from '../install-dir/env-file.ts';
import { BACKUPS_DIR, DATABASES, FILES_DIR, previousReleaseDir } from '../install-dir/install-layout.ts';
import {
  applySwap,
  installedReleaseUnits,
  planFileSwap,
  planSwapRecord,
  releaseUnits,
  stageReleaseFiles,
  undoSwap,
} from '../install-dir/release-files.ts';
import { beginJournal, completed, type Journal, reached, type JournalRecord } from '../journal/journal.ts';
import { waitForHealth } from '../runtime/wait-for-health.ts';
import type { InterruptHold } from '../ui/hold-interrupts.ts';
import type { OperationContext } from './operation-context.ts';

export interface RestoreOutcome {
  /** What the data before the restore was renamed to: kept until the operator removes it (cleanup). */
  keptAside: string[];
  totalMs: number;
}

/** Where a restore unpacks its backup: `backups/.restore-<stamp>/`. */
export function restoreWorkDir(home: string, stamp: string): string {
  return path.join(home, BACKUPS_DIR, `.restore-${stamp}`);
}

/** Starts the journal of a restore of `backupFile` (taken on `manifest.version`) over `installedVersion`. */
export async function beginRestore(
  op: OperationContext,
  options: {
    packageDir: string | null;
    version: string;
    installedVersion: string;
    backup: { file: string; createdAt: string };
    forwardOnly?: boolean;
  },
): Promise<Journal> {
  return beginJournal(
    op.home,
    {
      operation: 'restore',
      log: op.logFile,
      packageDir: options.packageDir,
      from: options.installedVersion,
      to: options.version,
      backup: options.backup,
      fromSchemaHeads: null,
      stamp: op.now().toISOString().replace(/\D/g, '').slice(0, 14),
      forwardOnly: options.forwardOnly ?? false,
    },
    { now: op.now, faults: op.faults, log: (l) => op.reporter.log(l) },
  );
}

/**
 * Restores the journal's backup (taken on this package's version), phase by phase, each phase
 * idempotent so that `recover` can run it again after a crash and finish the restore. The dumps
 * go into fresh databases (`<name>_restore_<stamp>`); only when all three are complete are they
 * swapped in by renaming, in one transaction, the current ones becoming `<name>_before_<stamp>`.
 * The file storage and configuration are swapped the same way, then the release files (staged
 * before the app stopped, so nothing after the swap needs the package). Nothing is overwritten.
 *
 * A failure before the databases are swapped puts everything back (rollBackRestore); after it,
 * the journal stays and `recover` finishes the restore.
 */
export async function runRestore(
  op: OperationContext,
  journal: Journal,
  options: { packageDir: string | null; manifest: PackageManifest; hold: InterruptHold | null },
): Promise<RestoreOutcome> {
  const { runtime, reporter, home } = op;
  const record = () => journal.record;
  const stamp = record().stamp!;
  const started = op.clock.now();
  const work = restoreWorkDir(home, stamp);
  const extracted = path.join(work, 'content');
  const backupFile = record().backup!.file;
  const resuming = record().phase !== 'begin';
  const swapped = async () => databasesSwapped(op, record());

  let step = reporter.step(`Verify and unpack ${path.basename(backupFile)}`);
  await journal.enter('verify');
  if (existsSync(path.join(work, '.unpacked'))) step.skip('unpacked already');
  else {
    await rm(work, { recursive: true, force: true });
    const verified = await verifyBackup(backupFile, runtime, path.join(work, 'dumps'), { extractTo: extracted });
    await writeFile(path.join(work, '.unpacked'), '');
    step.done(`${verified.files} files match their checksums; ${verified.dumpEntries} dump entries listed`);
  }
  await journal.leave('verify');

  step = reporter.step(`Load the images of ${options.manifest.version}`);
  await journal.enter('images');
  for (const image of options.manifest.images) {
    if (await runtime.hasImage(image)) continue;
    if (options.packageDir === null)
      throw new OperatorError(`the image ${imageReference(image)} is not loaded`, {
        hint: `Run the command from the folder of the package of ${options.manifest.version}, which holds it.`,
      });
    const bar = reporter.bar(`load ${imageReference(image)}`, image.bytes, 'bytes');
    await runtime.loadImage(path.join(options.packageDir, image.archive), image, (done, total) =>
      bar.update(done, total),
    );
    bar.stop();
  }
  await journal.leave('images');
  step.done();

  if (!record().forwardOnly && !completed(record(), 'stage')) {
    step = reporter.step(`Stage the release files of ${options.manifest.version}`);
    if (options.packageDir === null) throw new Error('a restore that swaps the release files needs its package');
    const swap =
      record().swap ??
      planSwapRecord(
        home,
        planFileSwap(
          releaseUnits(await readFile(path.join(options.packageDir, SUMS_FILE), 'utf8')),
          await installedReleaseUnits(home),
        ),
        { previousDir: previousReleaseDir(home, record().from), stagingName: `.staging-${options.manifest.version}` },
      );
    await journal.enter('stage', { swap });
    await stageReleaseFiles(home, options.packageDir, swap, op.faults);
    await journal.leave('stage');
    step.done();
  }
  options.hold?.checkpoint();
  options.hold?.changing();

  step = reporter.step('Stop the app; start the database');
  await journal.enter('stop');
  await runtime.stopApp();
  await runtime.startDatabase();
  await journal.leave('stop');
  step.done();

  if (!(await swapped())) {
    await journal.enter('dumps');
    await dropRestoreTargets(op, stamp);
    for (const db of DATABASES) {
      step = reporter.step(`Restore ${db.name} into a new database`);
      try {
        await runtime.restoreDump(path.join(extracted, db.dump), restoreTarget(db.name, stamp));
      } catch (err) {
        step.fail((err as Error).message);
        throw new RestoreDumpError((err as Error).message, db.name);
      }
      step.done(restoreTarget(db.name, stamp));
    }
    await journal.leave('dumps');

    step = reporter.step('Swap the restored databases in');
    await journal.enter('swap-databases');
    const existing = await databaseNames(op);
    const renames: string[] = [];
    for (const db of DATABASES) {
      if (existing.has(db.name)) renames.push(`alter database ${db.name} rename to ${db.name}_before_${stamp}`);
      renames.push(`alter database ${restoreTarget(db.name, stamp)} rename to ${db.name}`);
    }
    const names = DATABASES.map((d) => `'${d.name}'`).join(', ');
    await runtime.sql(
      'postgres',
      `select pg_terminate_backend(pid) from pg_stat_activity where datname in ` +
        `(${names}) and pid <> pg_backend_pid();\nbegin;\n${renames.join(';\n')};\ncommit`,
    );
    await journal.leave('swap-databases');
    step.done('in one transaction');
  } else if (resuming) {
    reporter.step('Swap the restored databases in').skip('done before');
  }

  step = reporter.step('Swap the file storage and configuration in');
  await journal.enter('swap-files');
  await swapStorageAndConfig(home, extracted, stamp, options.manifest.version);
  await journal.leave('swap-files');
  step.done();

  const swap = record().swap;
  if (!record().forwardOnly && swap) {
    step = reporter.step(`Put the release files of ${options.manifest.version} in place`);
    await journal.enter('release');
    await applySwap(home, swap);
    await journal.leave('release');
    step.done(`the ones before are in ${swap.previousDir}/`);
  }

  step = reporter.step(`Start ${options.manifest.version} and wait for it to answer healthy`);
  await journal.enter('start');
  await runtime.up();
  const health = await waitForHealth(runtime, {
    expectedVersion: options.manifest.version,
    timeoutMs: op.healthTimeoutMs,
    graceMs: op.healthGraceMs,
    clock: op.clock,
  });
  if (!health.ok) {
    step.fail(health.reason);
    throw new RestoredButNotStartingError(health.reason);
  }
  await journal.leave('start');
  step.done(`healthy after ${(health.healthyAfterMs / 1000).toFixed(1)} s`);
  await rm(work, { recursive: true, force: true });
  return { keptAside: keptAside(home, record()), totalMs: op.clock.now() - started };
}

/** A dump could not be restored: the backup is at fault (or the database server), not the installation. */
export class RestoreDumpError extends Error {
  constructor(
    message: string,
    readonly database: string,
  ) {
    super(message);
  }
}

/** The restored data is in place (the databases were swapped) but the service does not start. */
export class RestoredButNotStartingError extends Error {}

/**
 * Undoes a restore that had not swapped the databases in yet: drops the new databases it made
 * (its own, named after its stamp; never the installation's), removes the staged files and the
 * unpacked backup, and starts the installed version again. Idempotent.
 */
export async function rollBackRestore(op: OperationContext, record: JournalRecord): Promise<void> {
  const step = op.reporter.step(`Put ${record.from} back as it was before the restore`);
  try {
    if (reached(record, 'stop')) {
      await op.runtime.startDatabase();
      await dropRestoreTargets(op, record.stamp!);
    }
    if (record.swap) await undoSwap(op.home, record.swap);
    await rm(restoreWorkDir(op.home, record.stamp!), { recursive: true, force: true });
    await op.runtime.up();
    const health = await waitForHealth(op.runtime, {
      expectedVersion: record.from,
      timeoutMs: op.healthTimeoutMs,
      graceMs: Math.min(op.healthGraceMs, 5000),
      clock: op.clock,
    });
    if (!health.ok) throw new Error(health.reason);
  } catch (err) {
    step.fail((err as Error).message);
    throw err;
  }
  step.done(`${record.from} runs again with the data it had`);
}

/** Whether the restore's one-transaction rename has happened (its new databases are gone and the names are taken). */
export async function databasesSwapped(op: OperationContext, record: JournalRecord): Promise<boolean> {
  if (!reached(record, 'swap-databases')) return false;
  const names = await databaseNames(op);
  return DATABASES.every((d) => names.has(d.name) && !names.has(restoreTarget(d.name, record.stamp!)));
}

/** What the restore kept from before: listed at the end, removed by `cleanup`. */
export function keptAside(home: string, record: JournalRecord): string[] {
  const stamp = record.stamp!;
  const kept = DATABASES.map((d) => `database ${d.name}_before_${stamp}`);
  if (existsSync(path.join(home, `${FILES_DIR}.before-restore-${stamp}`)))
    kept.push(`${FILES_DIR}.before-restore-${stamp}/`);
  kept.push(`.before-restore-${stamp}/ (the configuration before the restore)`);
  if (record.swap && existsSync(path.join(home, record.swap.previousDir)))
    kept.push(`${record.swap.previousDir}/ (the release files before the restore)`);
  return kept;
}

function restoreTarget(name: string, stamp: string): string {
  return `${name}_restore_${stamp}`;
}

async function databaseNames(op: OperationContext): Promise<Set<string>> {
  return new Set(
    (await op.runtime.sql('postgres', 'select datname from pg_database')).split('\n').map((l) => l.trim()),
  );
}

/** Drops this restore's own half-made databases (after ending their sessions: a killed pg_restore may still run). */
async function dropRestoreTargets(op: OperationContext, stamp: string): Promise<void> {
  const names = await databaseNames(op);
  const targets = DATABASES.map((d) => restoreTarget(d.name, stamp)).filter((n) => names.has(n));
  if (targets.length === 0) return;
  op.reporter.log(`dropping the unfinished restore databases ${targets.join(', ')}`);
  await op.runtime.sql(
    'postgres',
    `select pg_terminate_backend(pid) from pg_stat_activity where datname in ` +
      `(${targets.map((t) => `'${t}'`).join(', ')});\n${targets.map((t) => `drop database if exists ${t}`).join(';\n')}`,
  );
}

/**
 * Moves the file storage and the operator's configuration from the unpacked backup into place,
 * keeping what was there (`data/app/files.before-restore-<stamp>`, `.before-restore-<stamp>/`).
 * Each move is checked against the disk first, so running it again after a crash finishes it.
 */
async function swapStorageAndConfig(home: string, extracted: string, stamp: string, version: string): Promise<void> {
  const storage = path.join(home, FILES_DIR);
  const storageAside = `${storage}.before-restore-${stamp}`;
  const restoredFiles = path.join(extracted, 'files');
  if (existsSync(storage) && !existsSync(storageAside)) await rename(storage, storageAside);
  if (existsSync(restoredFiles)) {
    if (!existsSync(storage)) await rename(restoredFiles, storage);
  } else await mkdir(storage, { recursive: true });

  const configAside = path.join(home, `.before-restore-${stamp}`);
  for (const part of CONFIG_PARTS) {
    const current = path.join(home, part.path);
    const fromBackup = path.join(extracted, 'config', part.path);
    const kept = path.join(configAside, part.path);
    if (existsSync(current) && !existsSync(kept)) {
      // Why through a temporary name: a copy cut short must never pass for the kept one.
      await mkdir(path.dirname(kept), { recursive: true });
      await rm(`${kept}.partial`, { recursive: true, force: true });
      await cp(current, `${kept}.partial`, { recursive: true, preserveTimestamps: true });
      await rename(`${kept}.partial`, kept);
    }
    if (!existsSync(fromBackup)) continue;
    if (part.path === '.env') {
      const env = setEnvValue(await readFile(fromBackup, 'utf8'), 'SERVICE_VERSION', version);
      if (existsSync(current)) await replaceFileAtomically(current, env);
      else await writeFile(current, env, { mode: 0o600 });
    } else {
      await rm(current, { recursive: true, force: true });
      await mkdir(path.dirname(current), { recursive: true });
      await rename(fromBackup, current);
    }
  }
}
