import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OperatorError } from '@service/cli-kit';
import { imageReference, SUMS_FILE, type PackageManifest } from '@service/release-kit';
import { CONFIG_PARTS } from '../backup/create-backup.ts';
import { verifyBackup } from '../backup/verify-backup.ts';
import { replaceFileAtomically, setEnvValue } from '../install-dir/env-file.ts';
import { BACKUPS_DIR, DATABASES, FILES_DIR, previousReleaseDir } from '../install-dir/install-layout.ts';
import { installedReleaseUnits, planFileSwap, releaseUnits, swapReleaseFiles } from '../install-dir/release-files.ts';
import type { ServiceRuntime } from '../runtime/service-runtime.ts';
import { waitForHealth, type Clock } from '../runtime/wait-for-health.ts';
import type { Reporter } from '../ui/reporter.ts';

export interface RestoreOutcome {
  /** What the data before the restore was renamed to: kept until the operator removes it. */
  keptAside: string[];
  totalMs: number;
}

/**
 * Restores a backup taken on this package's version. The dumps go into fresh databases
 * (`<name>_restore_<stamp>`); only when all three are complete are they swapped in by renaming, in
 * one transaction, with the current databases renamed to `<name>_before_<stamp>`. The file
 * storage and configuration are swapped the same way. A failure before the swap leaves the
 * current data untouched (and drops the fresh databases it made); nothing is ever overwritten.
 */
export async function applyRestore(options: {
  home: string;
  packageDir: string;
  manifest: PackageManifest;
  backupFile: string;
  installedVersion: string;
  runtime: ServiceRuntime;
  reporter: Reporter;
  clock: Clock;
  now: Date;
  healthTimeoutMs: number;
  healthGraceMs: number;
}): Promise<RestoreOutcome> {
  const { home, runtime, reporter, manifest } = options;
  const started = options.clock.now();
  const stamp = options.now.toISOString().replace(/\D/g, '').slice(0, 14);
  const work = path.join(home, BACKUPS_DIR, `.restore-${stamp}`);
  await rm(work, { recursive: true, force: true });
  const extracted = path.join(work, 'content');
  const keptAside: string[] = [];
  try {
    let step = reporter.step(`Verify and unpack ${path.basename(options.backupFile)}`);
    const verified = await verifyBackup(options.backupFile, runtime, path.join(work, 'dumps'), {
      extractTo: extracted,
    });
    step.done(`${verified.files} files match their checksums; ${verified.dumpEntries} dump entries listed`);

    step = reporter.step(`Load the images of ${manifest.version}`);
    for (const image of manifest.images) {
      if (await runtime.hasImage(image)) continue;
      const bar = reporter.bar(`load ${imageReference(image)}`, image.bytes, 'bytes');
      await runtime.loadImage(path.join(options.packageDir, image.archive), image, (done, total) =>
        bar.update(done, total),
      );
      bar.stop();
    }
    step.done();

    step = reporter.step('Stop the app; start the database');
    await runtime.stopApp();
    await runtime.startDatabase();
    step.done();

    const fresh: string[] = [];
    try {
      for (const db of DATABASES) {
        step = reporter.step(`Restore ${db.name} into a new database`);
        const target = `${db.name}_restore_${stamp}`;
        fresh.push(target);
        await runtime.restoreDump(path.join(extracted, db.dump), target);
        step.done(target);
      }
    } catch (err) {
      step.fail((err as Error).message);
      for (const name of fresh) await runtime.sql('postgres', `drop database if exists ${name}`).catch(() => {});
      await runtime.up().catch(() => {});
      throw new OperatorError(
        `the restore failed while loading the dumps: ${(err as Error).message}. The ` +
          `current databases were not touched and the service was started again`,
        {
          hint: 'See the log file; try another backup.',
        },
      );
    }

    step = reporter.step('Swap the restored databases in');
    const existing = new Set(
      (await runtime.sql('postgres', 'select datname from pg_database')).split('\n').map((l) => l.trim()),
    );
    const renames: string[] = [];
    for (const db of DATABASES) {
      if (existing.has(db.name)) {
        renames.push(`alter database ${db.name} rename to ${db.name}_before_${stamp}`);
        keptAside.push(`database ${db.name}_before_${stamp}`);
      }
      renames.push(`alter database ${db.name}_restore_${stamp} rename to ${db.name}`);
    }
    const names = DATABASES.map((d) => `'${d.name}'`).join(', ');
    await runtime.sql(
      'postgres',
      `select pg_terminate_backend(pid) from pg_stat_activity where datname in ` +
        `(${names}) and pid <> pg_backend_pid();\nbegin;\n${renames.join(';\n')};\ncommit`,
    );
    step.done('in one transaction');

    step = reporter.step('Swap the file storage and configuration in');
    const storage = path.join(home, FILES_DIR);
    if (existsSync(storage)) {
      await rename(storage, `${storage}.before-restore-${stamp}`);
      keptAside.push(`${FILES_DIR}.before-restore-${stamp}/`);
    }
    const restoredFiles = path.join(extracted, 'files');
    if (existsSync(restoredFiles)) await rename(restoredFiles, storage);
    else await mkdir(storage, { recursive: true });
    const configAside = path.join(home, `.before-restore-${stamp}`);
    for (const part of CONFIG_PARTS) {
      const current = path.join(home, part.path);
      const fromBackup = path.join(extracted, 'config', part.path);
      if (existsSync(current)) {
        await mkdir(path.dirname(path.join(configAside, part.path)), { recursive: true });
        await cp(current, path.join(configAside, part.path), { recursive: true, preserveTimestamps: true });
      }
      if (existsSync(fromBackup)) {
        if (part.path === '.env') {
          const env = setEnvValue(await readFile(fromBackup, 'utf8'), 'SERVICE_VERSION', manifest.version);
          if (existsSync(current)) await replaceFileAtomically(current, env);
          else await writeFile(current, env, { mode: 0o600 });
        } else {
          await rm(current, { recursive: true, force: true });
          await mkdir(path.dirname(current), { recursive: true });
          await rename(fromBackup, current);
        }
      }
    }
    keptAside.push(`${path.basename(configAside)}/ (the configuration before the restore)`);
    const units = releaseUnits(await readFile(path.join(options.packageDir, SUMS_FILE), 'utf8'));
    const swap = await swapReleaseFiles({
      home,
      packageDir: options.packageDir,
      plan: planFileSwap(units, await installedReleaseUnits(home)),
      previousDir: previousReleaseDir(home, options.installedVersion),
      stagingName: `.staging-${manifest.version}`,
    });
    keptAside.push(`${path.basename(swap.previousDir)}/ (the release files before the restore)`);
    step.done();

    step = reporter.step(`Start ${manifest.version} and wait for it to answer healthy`);
    await runtime.up();
    const health = await waitForHealth(runtime, {
      expectedVersion: manifest.version,
      timeoutMs: options.healthTimeoutMs,
      graceMs: options.healthGraceMs,
      clock: options.clock,
    });
    if (!health.ok) {
      step.fail(health.reason);
      throw new OperatorError(
        `the restored data is in place but ${manifest.version} does not start: ${health.reason}`,
        {
          hint: `The data from before the restore is kept: ${keptAside.join('; ')}. Read the log in ${home}/logs/.`,
        },
      );
    }
    step.done(`healthy after ${(health.healthyAfterMs / 1000).toFixed(1)} s`);
    return { keptAside, totalMs: options.clock.now() - started };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
