import path from 'node:path';
import { OperatorError } from '@service/cli-kit';
import { imageReference, type PackageManifest } from '@service/release-kit';
import { createBackup } from '../backup/create-backup.ts';
import type { BackupFile } from '../backup/list-backups.ts';
import { previousReleaseDir } from '../install-dir/install-layout.ts';
import { applySwap, planSwapRecord, stageReleaseFiles } from '../install-dir/release-files.ts';
import { beginJournal, type Journal } from '../journal/journal.ts';
import { waitForHealth } from '../runtime/wait-for-health.ts';
import { StoppedBySignal, type InterruptHold } from '../ui/hold-interrupts.ts';
import { describeBackup, recoverAfterUpgradeHint } from './describe-backup.ts';
import type { OperationContext } from './operation-context.ts';
import type { UpgradePlan } from './plan-upgrade.ts';
import {
  databasesUntouched,
  readDatabaseState,
  rollBackUpgrade,
  setInstalledVersion,
  showAppLogTail,
} from './upgrade-steps.ts';

/** The restore point of an upgrade: a fresh backup (the default), one taken minutes ago, or none (asked for). */
export type BackupChoice = { kind: 'take' } | { kind: 'reuse'; backup: BackupFile } | { kind: 'skip' };

export interface ApplyUpgradeOptions {
  packageDir: string;
  manifest: PackageManifest;
  /** The installed release's manifest (schema heads, images), null when unknown. */
  installedManifest: PackageManifest | null;
  plan: Extract<UpgradePlan, { kind: 'upgrade' }>;
  backup: BackupChoice;
  hold: InterruptHold;
}

export interface UpgradeOutcome {
  totalMs: number;
  /** From recreating the containers to the new version answering healthy. */
  unavailableMs: number;
  /** The journal, still open: the library question belongs to the upgrade; the caller finishes it. */
  journal: Journal;
  backup: { file: string; createdAt: string } | null;
}

/**
 * Carries out an upgrade plan in INSTALLER.md's order, recording each phase in the journal
 * before and after it: the images load while the old version runs, a fresh backup is taken (the
 * restore point), the release files are swapped, SERVICE_VERSION is set, the changed containers
 * are recreated and the new version must answer healthy and stay so.
 *
 * On failure, by phase: before the swap nothing has changed; until the new app has started the
 * previous files and SERVICE_VERSION are put back and the old version started again; after it
 * has started, the databases decide: unchanged (same version and schema heads), the same
 * rollback is safe; changed, the app is stopped and the journal left for `recover`, which
 * restores the backup taken here. No database is ever dropped or overwritten.
 */
export async function applyUpgrade(op: OperationContext, options: ApplyUpgradeOptions): Promise<UpgradeOutcome> {
  const { plan, runtime, reporter } = { ...options, ...op };
  const started = op.clock.now();
  const journal = await beginJournal(
    op.home,
    {
      operation: 'upgrade',
      log: op.logFile,
      packageDir: options.packageDir,
      from: plan.from,
      to: plan.to,
      backup: null,
      fromSchemaHeads: options.installedManifest?.schemaHeads ?? null,
      stamp: null,
    },
    { now: op.now, faults: op.faults, log: (l) => reporter.log(l) },
  );
  let step = reporter.step(`Load the images of ${plan.to}`);
  let stepOpen = true;
  let upStarted = 0;
  try {
    // Phase: images, while the old version keeps running. Nothing in the installation changes.
    await journal.enter('images');
    for (const image of plan.imagesToLoad) {
      const bar = reporter.bar(`load ${imageReference(image)}`, image.bytes, 'bytes');
      await runtime.loadImage(path.join(options.packageDir, image.archive), image, (done, total) =>
        bar.update(done, total),
      );
      bar.stop();
    }
    const absent: string[] = [];
    for (const image of options.manifest.images)
      if (!(await runtime.hasImage(image))) absent.push(imageReference(image));
    if (absent.length > 0)
      throw new OperatorError(`the engine does not have ${absent.join(', ')} after loading the package's images`, {
        hint: 'See the log file; check the engine with `docker image ls`.',
      });
    step.done(
      plan.imagesToLoad.length > 0
        ? `${plan.imagesToLoad.length} loaded, every image of the manifest present`
        : 'every image already present',
    );
    stepOpen = false;
    await journal.leave('images');
    options.hold.checkpoint();

    // Phase: the restore point, right before the first change.
    await journal.enter('backup');
    const restorePoint = await takeRestorePoint(op, plan.from, options.backup);
    await journal.leave('backup', { backup: restorePoint });
    options.hold.checkpoint();
  } catch (err) {
    if (stepOpen) step.fail((err as Error).message);
    const outcome = await journal.finish('failed-nothing-changed', (err as Error).message);
    throw err instanceof StoppedBySignal
      ? err
      : new OperatorError(`the upgrade to ${plan.to} failed: ${(err as Error).message}; nothing was changed`, {
          hint: (err as OperatorError).hint ?? `Read the log (${outcome.log ?? `${op.home}/logs/`}).`,
          cause: err,
        });
  }

  // From here on the installation changes: signals are held until it is done or rolled back.
  options.hold.changing();
  try {
    step = reporter.step('Replace the release files');
    const swap = planSwapRecord(op.home, plan.files, {
      previousDir: previousReleaseDir(op.home, plan.from),
      stagingName: `.staging-${plan.to}`,
    });
    await journal.enter('files', { swap });
    await stageReleaseFiles(op.home, options.packageDir, swap, op.faults);
    await applySwap(op.home, swap);
    await journal.leave('files');
    step.done(
      `${plan.files.replace.length} replaced, ${plan.files.remove.length} retired; ` +
        `previous ones in ${swap.previousDir}/`,
    );
    step = reporter.step(`Set SERVICE_VERSION=${plan.to} in .env`);
    await journal.enter('version');
    await setInstalledVersion(op.home, plan.to);
    await journal.leave('version');
    step.done();
  } catch (err) {
    step.fail((err as Error).message);
    return rollBackAndThrow(op, journal, `replacing the files failed: ${(err as Error).message}`);
  }

  // The new app starts (and may migrate the databases).
  let failure: string | null = null;
  step = reporter.step(`Recreate the containers whose image changed (${plan.recreate.join(', ') || 'none'})`);
  try {
    await journal.enter('start');
    upStarted = op.clock.now();
    await runtime.up();
    await journal.leave('start');
    step.done();
  } catch (err) {
    step.fail((err as Error).message);
    failure = `starting the containers failed: ${(err as Error).message}`;
  }
  let unavailableMs = 0;
  if (failure === null) {
    step = reporter.step(`Wait for ${plan.to} to answer healthy`);
    try {
      await journal.enter('health');
      const waitStarted = op.clock.now();
      const health = await waitForHealth(runtime, {
        expectedVersion: plan.to,
        timeoutMs: op.healthTimeoutMs,
        graceMs: op.healthGraceMs,
        clock: op.clock,
      });
      if (health.ok) {
        await journal.leave('health');
        unavailableMs = waitStarted - upStarted + health.healthyAfterMs;
        step.done(`healthy after ${(health.healthyAfterMs / 1000).toFixed(1)} s, and stayed healthy`);
      } else {
        step.fail(health.reason);
        failure = health.reason;
      }
    } catch (err) {
      step.fail((err as Error).message);
      failure = (err as Error).message;
    }
  }
  if (failure !== null) {
    await showAppLogTail(op);
    await runtime.startDatabase().catch(() => {});
    const state = await readDatabaseState(op);
    op.reporter.log(`databases after the failed start: ${JSON.stringify(state)}`);
    if (databasesUntouched(state, plan.from, journal.record.fromSchemaHeads))
      return rollBackAndThrow(op, journal, `${plan.to} did not start (${failure}); the databases were not changed`);
    await runtime.stopApp().catch(() => {});
    await journal.tryUpdate({
      stopped: { reason: `${plan.to} changed the databases, then failed: ${failure}`, at: op.now().toISOString() },
    });
    throw new OperatorError(
      `the upgrade to ${plan.to} failed after the new app started and changed the databases: ` +
        `${failure}. The app is stopped; nothing was rolled back yet`,
      { hint: recoverAfterUpgradeHint(op.home, plan.from, journal.record.backup, op.now()) },
    );
  }
  return {
    totalMs: op.clock.now() - started,
    unavailableMs: Math.max(0, unavailableMs),
    journal,
    backup: journal.record.backup,
  };
}

/** Takes, reuses or skips the backup the upgrade can go back to, and says which, with its time. */
async function takeRestorePoint(
  op: OperationContext,
  version: string,
  choice: BackupChoice,
): Promise<{ file: string; createdAt: string } | null> {
  if (choice.kind === 'skip') {
    op.reporter.warn(
      'no backup is taken (--skip-backup): if the new version changes the databases and fails, there is no way back to this moment',
    );
    return null;
  }
  if (choice.kind === 'reuse') {
    const backup = { file: choice.backup.file, createdAt: choice.backup.createdAt.toISOString() };
    op.reporter.step('Back up the installation').skip(`reusing ${describeBackup(backup, op.now())}`);
    return backup;
  }
  const at = op.now();
  const created = await createBackup({ home: op.home, version, runtime: op.runtime, reporter: op.reporter, now: at });
  const backup = { file: created.file, createdAt: created.manifest.createdAt };
  op.reporter.info(`Restore point: ${describeBackup(backup, op.now())}`);
  return backup;
}

/**
 * Rolls the upgrade back in this process and throws what happened. When even that fails the
 * journal stays, so `recover` can finish the rollback once the cause (a full disk) is gone.
 */
async function rollBackAndThrow(op: OperationContext, journal: Journal, reason: string): Promise<never> {
  const { from, to } = journal.record;
  op.reporter.warn(`${reason}; putting ${from} back`);
  try {
    await rollBackUpgrade(op, journal.record);
  } catch (err) {
    await journal.tryUpdate({
      stopped: { reason: `${reason}; the rollback failed too: ${(err as Error).message}`, at: op.now().toISOString() },
    });
    throw new OperatorError(
      `the upgrade to ${to} failed (${reason}) and putting ${from} back also failed: ${(err as Error).message}`,
      {
        hint:
          `Free what is short (disk space, see the log in ${op.home}/logs/), then run ` +
          `\`./install.sh recover --home ${op.home}\`: it finishes putting ${from} back.`,
      },
    );
  }
  await journal.finish('rolled-back', reason);
  throw new OperatorError(`the upgrade to ${to} failed: ${reason}. ${from} is running again; nothing else changed`, {
    hint: `Read the log in ${op.home}/logs/ and the app's output above, then contact the vendor with it.`,
  });
}
