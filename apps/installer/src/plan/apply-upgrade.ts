import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { OperatorError } from '@service/cli-kit';
import { imageReference, packageFileName, type PackageManifest } from '@service/release-kit';
import { readSchemaHeads } from '../backup/create-backup.ts';
import type { BackupFile } from '../backup/list-backups.ts';
import { replaceFileAtomically, setEnvValue } from '../install-dir/env-file.ts';
import { DATABASES, previousReleaseDir, type SchemaHeads } from '../install-dir/install-layout.ts';
import { swapReleaseFiles, type FileSwap } from '../install-dir/release-files.ts';
import type { ServiceRuntime } from '../runtime/service-runtime.ts';
import { waitForHealth, type Clock } from '../runtime/wait-for-health.ts';
import type { Reporter } from '../ui/reporter.ts';
import type { UpgradePlan } from './plan-upgrade.ts';

export interface ApplyUpgradeOptions {
  home: string;
  packageDir: string;
  manifest: PackageManifest;
  /** The installed release's manifest (schema heads, images), null when unknown. */
  installedManifest: PackageManifest | null;
  plan: Extract<UpgradePlan, { kind: 'upgrade' }>;
  runtime: ServiceRuntime;
  reporter: Reporter;
  clock: Clock;
  healthTimeoutMs: number;
  healthGraceMs: number;
  /** Newest backup of the installed version, for the restore command printed after a late failure. */
  latestBackup: BackupFile | null;
}

export interface UpgradeOutcome {
  totalMs: number;
  /** From stopping the old app to the new one answering healthy. */
  unavailableMs: number;
}

/**
 * Carries out an upgrade plan, in INSTALLER.md's order, and on failure undoes what it did by
 * phase (step 7): before the new app has started, the previous files and SERVICE_VERSION are put
 * back and the old images started again. After it has started, the databases are checked: if the
 * new app left them as they were (same recorded version and schema heads), the same rollback is
 * safe; otherwise the app is stopped, everything is left for inspection and the exact restore
 * command is printed. No database is ever dropped or overwritten.
 */
export async function applyUpgrade(options: ApplyUpgradeOptions): Promise<UpgradeOutcome> {
  const { home, plan, runtime, reporter, clock } = options;
  const started = clock.now();
  const envFile = path.join(home, '.env');

  // Phase 1: images, while the old version keeps running. Nothing in the installation changes.
  let step = reporter.step(`Load the images of ${plan.to}`);
  for (const image of plan.imagesToLoad) {
    const bar = reporter.bar(`load ${imageReference(image)}`, image.bytes, 'bytes');
    await runtime.loadImage(path.join(options.packageDir, image.archive), image, (done, total) =>
      bar.update(done, total),
    );
    bar.stop();
  }
  const absent: string[] = [];
  for (const image of options.manifest.images) if (!(await runtime.hasImage(image))) absent.push(imageReference(image));
  if (absent.length > 0) {
    step.fail(`missing after loading: ${absent.join(', ')}`);
    throw new OperatorError(
      `the engine does not have ${absent.join(', ')} after loading the package's images; nothing was changed`,
      { hint: 'See the log file; check the engine with `docker image ls`.' },
    );
  }
  step.done(
    plan.imagesToLoad.length > 0
      ? `${plan.imagesToLoad.length} loaded, every image of the manifest present`
      : 'every image already present',
  );

  // Phase 2: files and SERVICE_VERSION. Undone on any failure until the new app has started.
  const envBefore = await readFile(envFile, 'utf8');
  let swap: FileSwap | null = null;
  let envChanged = false;
  let appStarted = false;
  let stopMark = clock.now();
  const rollBack = async (reason: string): Promise<never> => {
    reporter.warn(`${reason}; putting ${plan.from} back`);
    const back = reporter.step(`Roll back to ${plan.from}`);
    try {
      if (appStarted) await runtime.stopApp();
      if (envChanged) await replaceFileAtomically(envFile, envBefore);
      await swap?.undo();
      await runtime.up();
      const health = await waitForHealth(runtime, {
        expectedVersion: plan.from,
        timeoutMs: options.healthTimeoutMs,
        graceMs: Math.min(options.healthGraceMs, 5000),
        clock,
      });
      if (!health.ok) throw new Error(health.reason);
      back.done(`${plan.from} runs again`);
    } catch (err) {
      back.fail((err as Error).message);
      throw new OperatorError(
        `the upgrade to ${plan.to} failed (${reason}) and putting ${plan.from} back also ` +
          `failed: ${(err as Error).message}`,
        {
          hint:
            `Read the log in ${home}/logs/; the replaced files are in ` +
            `${swap?.previousDir ?? previousReleaseDir(home, plan.from)}/. ` +
            `${restoreHint(options)}`,
        },
      );
    }
    throw new OperatorError(
      `the upgrade to ${plan.to} failed: ${reason}. ${plan.from} is running again; nothing else changed`,
      {
        hint: `Read the log in ${home}/logs/ and the app's output above, then contact the vendor with it.`,
      },
    );
  };

  step = reporter.step('Replace the release files');
  try {
    swap = await swapReleaseFiles({
      home,
      packageDir: options.packageDir,
      plan: plan.files,
      previousDir: previousReleaseDir(home, plan.from),
      stagingName: `.staging-${plan.to}`,
    });
    step.done(
      `${plan.files.replace.length} replaced, ${plan.files.remove.length} retired; ` +
        `previous ones in ${path.basename(swap.previousDir)}/`,
    );
    step = reporter.step(`Set SERVICE_VERSION=${plan.to} in .env`);
    await replaceFileAtomically(envFile, setEnvValue(envBefore, 'SERVICE_VERSION', plan.to));
    envChanged = true;
    step.done();
  } catch (err) {
    step.fail((err as Error).message);
    return rollBack(`replacing the files failed: ${(err as Error).message}`);
  }

  // Phase 3: the new app starts (and may migrate the databases).
  step = reporter.step(`Recreate the containers whose image changed (${plan.recreate.join(', ') || 'none'})`);
  stopMark = clock.now();
  appStarted = true;
  let failure: string | null = null;
  try {
    await runtime.up();
    step.done();
  } catch (err) {
    step.fail((err as Error).message);
    failure = `starting the containers failed: ${(err as Error).message}`;
  }
  let unavailableMs = 0;
  if (failure === null) {
    step = reporter.step(`Wait for ${plan.to} to answer healthy`);
    const waitStart = clock.now();
    const health = await waitForHealth(runtime, {
      expectedVersion: plan.to,
      timeoutMs: options.healthTimeoutMs,
      graceMs: options.healthGraceMs,
      clock,
    });
    if (health.ok) {
      unavailableMs = waitStart - stopMark + health.healthyAfterMs;
      step.done(`healthy after ${(health.healthyAfterMs / 1000).toFixed(1)} s, and stayed healthy`);
    } else {
      step.fail(health.reason);
      failure = health.reason;
    }
  }
  if (failure !== null) {
    const tail = await runtime.appLogTail(20).catch(() => '');
    if (tail.trim() !== '')
      reporter.info(
        `last lines of the app's output:\n${tail
          .trim()
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n')}`,
      );
    if (await databasesUntouched(runtime, plan.from, options.installedManifest?.schemaHeads ?? null, reporter)) {
      return rollBack(`${plan.to} did not start (${failure}); the databases were not changed`);
    }
    await runtime.stopApp().catch(() => {});
    throw new OperatorError(
      `the upgrade to ${plan.to} failed after the new app started and changed the ` +
        `databases: ${failure}. The app is stopped; everything is left as it is for ` +
        `inspection`,
      {
        hint: restoreHint(options),
      },
    );
  }
  return { totalMs: clock.now() - started, unavailableMs: Math.max(0, unavailableMs) };
}

/** Whether the control plane still records the old version and every database its old schema head. */
async function databasesUntouched(
  runtime: ServiceRuntime,
  oldVersion: string,
  oldHeads: SchemaHeads | null,
  reporter: Reporter,
): Promise<boolean> {
  if (oldHeads === null) return false;
  try {
    await runtime.startDatabase();
    const recorded = (await runtime.sql(DATABASES[0].name, 'select version from installation where id = 1')).trim();
    const heads = await readSchemaHeads(runtime);
    const same = recorded === oldVersion && DATABASES.every((d) => heads[d.key] === oldHeads[d.key]);
    reporter.log(
      `databases after the failed start: version ${recorded}, heads ${JSON.stringify(heads)}; unchanged: ${same}`,
    );
    return same;
  } catch (err) {
    reporter.log(`could not read the databases after the failed start: ${(err as Error).message}`);
    return false;
  }
}

function restoreHint(options: ApplyUpgradeOptions): string {
  const from = options.plan.from;
  const backup = options.latestBackup?.file ?? `${options.home}/backups/service-${from}-<time>.tar.gz`;
  return (
    `Restore the backup taken before the upgrade: from the directory of ` +
    `${packageFileName(from)} run \`./install.sh restore ${backup} --home ` +
    `${options.home}\``
  );
}
