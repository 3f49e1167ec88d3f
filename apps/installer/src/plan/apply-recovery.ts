import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { OperatorError } from '@service/cli-kit';
import { MANIFEST_FILE, parsePackageManifest, readSmallFile, type PackageManifest } from '@service/release-kit';
import { BACKUPS_DIR } from '../install-dir/install-layout.ts';
import { undoSwap } from '../install-dir/release-files.ts';
import type { Journal, JournalRecord } from '../journal/journal.ts';
import { waitForHealth } from '../runtime/wait-for-health.ts';
import { rollBackRestore, runRestore } from './apply-restore.ts';
import type { OperationContext } from './operation-context.ts';
import { planRecovery, type RecoveryFacts, type RecoveryPlan } from './plan-recovery.ts';
import { readDatabaseState, rollBackUpgrade, setInstalledVersion } from './upgrade-steps.ts';

/**
 * What recover (or, read-only, status) can see: the app, the version answering healthy, the
 * databases. `startDatabase` (recover only) starts the database first so it can be read.
 */
export async function observeForRecovery(
  op: OperationContext,
  journal: JournalRecord,
  options: { startDatabase: boolean; backupOverride?: { file: string; createdAt: string } | null },
): Promise<RecoveryFacts> {
  const appState = await op.runtime.appState().catch(() => ({ state: 'missing' as const, exitCode: null }));
  let healthyVersion: string | null = null;
  if (appState.state === 'running') {
    const health = await op.runtime.probe('/api/health');
    const version = health?.status === 200 ? await op.runtime.probe('/api/version') : null;
    if (version?.status === 200) {
      try {
        healthyVersion = (JSON.parse(version.body) as { version?: string }).version ?? null;
      } catch {
        healthyVersion = null;
      }
    }
  }
  if (options.startDatabase) await op.runtime.startDatabase().catch((err: Error) => op.reporter.log(err.message));
  const databases = await readDatabaseState(op);
  const databaseNames = await op.runtime
    .sql('postgres', 'select datname from pg_database')
    .then((out) => new Set(out.split('\n').map((l) => l.trim())))
    .catch(() => null);
  return {
    journal,
    now: op.now(),
    app: { state: appState.state, healthyVersion },
    databases,
    databaseNames,
    backupPresent: journal.backup !== null && existsSync(journal.backup.file),
    backupOverride: options.backupOverride ?? null,
  };
}

export interface RecoveryOutcome {
  /** The version the installation runs now. */
  version: string;
  message: string;
}

/**
 * Carries out a recovery plan, then ends the journal. Each action is idempotent, so a recover
 * that is itself interrupted is simply run again. `packageDir`: the package recover runs from,
 * used only when images of the target version must be loaded.
 */
export async function applyRecovery(
  op: OperationContext,
  journal: Journal,
  plan: RecoveryPlan,
  options: { packageDir: string | null; backupOverride?: { file: string; createdAt: string } | null },
): Promise<RecoveryOutcome> {
  const record = journal.record;
  switch (plan.action) {
    case 'stuck':
      throw new OperatorError(`recover cannot go on: ${plan.summary}`, { hint: plan.hint });

    case 'read-databases-first': {
      const facts = await observeForRecovery(op, record, {
        startDatabase: true,
        backupOverride: options.backupOverride,
      });
      return applyRecovery(op, journal, planRecovery(facts), options);
    }

    case 'clean-up': {
      await removeUnfinishedBackups(op.home);
      if (record.swap) await undoSwap(op.home, record.swap);
      await startAndWait(op, record.from, 'the version before the upgrade');
      await journal.finish('recovered-back', plan.summary);
      return { version: record.from, message: `${record.from} runs; the upgrade to ${record.to} had changed nothing` };
    }

    case 'roll-back-upgrade': {
      await rollBackUpgrade(op, record);
      await journal.finish('recovered-back', plan.summary);
      return {
        version: record.from,
        message: `the upgrade to ${record.to} was rolled back; ${record.from} runs with the data it had`,
      };
    }

    case 'roll-forward-upgrade':
    case 'wait-for-new-version': {
      await op.runtime.up();
      const step = op.reporter.step(`Wait for ${record.to} to answer healthy`);
      const health = await waitForHealth(op.runtime, {
        expectedVersion: record.to,
        timeoutMs: op.healthTimeoutMs,
        graceMs: op.healthGraceMs,
        clock: op.clock,
      });
      if (health.ok) {
        step.done('healthy, and stayed healthy');
        await journal.finish('recovered-forward', plan.summary);
        return {
          version: record.to,
          message:
            `the upgrade to ${record.to} is finished; if its library changed, import it with ` +
            `\`./install.sh import-globals --home ${op.home}\``,
        };
      }
      step.fail(health.reason);
      if (plan.action === 'roll-forward-upgrade' && record.phase === 'library')
        throw new OperatorError(`${record.to} had been healthy but does not start now: ${health.reason}`, {
          hint: `Read the app's log (\`docker compose logs app\` in ${op.home}), fix the cause, then run recover again.`,
        });
      // Not coming up: stop it and decide again on what the databases say.
      await op.runtime.stopApp();
      await journal.tryUpdate({
        stopped: { reason: `${record.to} did not come up: ${health.reason}`, at: op.now().toISOString() },
      });
      const facts = await observeForRecovery(op, journal.record, {
        startDatabase: true,
        backupOverride: options.backupOverride,
      });
      const next = planRecovery(facts);
      op.reporter.info(`Then: ${next.summary}`);
      return applyRecovery(op, journal, next, options);
    }

    case 'restore-before-upgrade': {
      const backup = options.backupOverride ?? record.backup!;
      const step = op.reporter.step(`Stop ${record.to}; put the release files of ${record.from} back`);
      await op.runtime.stopApp();
      await setInstalledVersion(op.home, record.from);
      if (record.swap) await undoSwap(op.home, record.swap);
      step.done();
      const manifest = await readManifestOf(record.from, [op.home]);
      const restore = await journal.replaceWith('recovered-back', `restoring ${backup.file} taken before the upgrade`, {
        operation: 'restore',
        log: op.logFile,
        packageDir: null,
        from: record.from,
        to: record.from,
        backup,
        fromSchemaHeads: null,
        stamp: op.now().toISOString().replace(/\D/g, '').slice(0, 14),
        forwardOnly: true,
      });
      const outcome = await runRestore(op, restore, {
        packageDir: await packageOf(options.packageDir, record.from),
        manifest,
        hold: null,
      });
      await restore.finish('succeeded', `restored ${backup.file} after the failed upgrade to ${record.to}`);
      return {
        version: record.from,
        message:
          `${record.from} runs with the data of ${path.basename(backup.file)}; kept from before: ` +
          `${outcome.keptAside.join('; ')}`,
      };
    }

    case 'roll-back-restore': {
      await rollBackRestore(op, record);
      await journal.finish('recovered-back', plan.summary);
      return { version: record.from, message: `the restore was undone; ${record.from} runs with the data it had` };
    }

    case 'roll-forward-restore': {
      const manifest = await readManifestOf(
        record.to,
        [record.packageDir, record.swap ? path.join(op.home, record.swap.staging) : null, op.home].filter(
          (d): d is string => d !== null,
        ),
      );
      const outcome = await runRestore(op, journal, {
        packageDir: record.packageDir && existsSync(record.packageDir) ? record.packageDir : options.packageDir,
        manifest,
        hold: null,
      });
      await journal.finish('recovered-forward', plan.summary);
      return {
        version: record.to,
        message: `the restore is finished; ${record.to} runs. Kept from before: ${outcome.keptAside.join('; ')}`,
      };
    }

    case 'finish-import': {
      await startAndWait(op, record.to, 'the service');
      await journal.finish('recovered-forward', plan.summary);
      return {
        version: record.to,
        message: `${record.to} runs; an import that was requested and not done is carried out at this start`,
      };
    }
  }
}

async function startAndWait(op: OperationContext, version: string, what: string): Promise<void> {
  const step = op.reporter.step(`Start ${what} (${version}) and wait for it to answer healthy`);
  await op.runtime.up();
  const health = await waitForHealth(op.runtime, {
    expectedVersion: version,
    timeoutMs: op.healthTimeoutMs,
    graceMs: Math.min(op.healthGraceMs, 5000),
    clock: op.clock,
  });
  if (!health.ok) {
    step.fail(health.reason);
    throw new OperatorError(`${version} does not come up: ${health.reason}`, {
      hint: `Read the app's log (\`docker compose logs app\` in ${op.home}), fix the cause, then run recover again.`,
    });
  }
  step.done('healthy');
}

/** The partial files of a backup a crash interrupted (`backups/.partial-*`). */
async function removeUnfinishedBackups(home: string): Promise<void> {
  const dir = path.join(home, BACKUPS_DIR);
  for (const name of await readdir(dir).catch(() => [] as string[]))
    if (name.startsWith('.partial-')) await rm(path.join(dir, name), { recursive: true, force: true });
}

/** The release manifest of `version` from the first of `dirs` that holds it. */
async function readManifestOf(version: string, dirs: string[]): Promise<PackageManifest> {
  for (const dir of dirs) {
    const text = await readSmallFile(path.join(dir, MANIFEST_FILE), 256 * 1024).catch(() => null);
    if (text === null) continue;
    try {
      const manifest = parsePackageManifest(text, path.join(dir, MANIFEST_FILE));
      if (manifest.version === version) return manifest;
    } catch {
      // another folder may have it
    }
  }
  throw new OperatorError(`the release manifest of ${version} is not in ${dirs.join(', ')}`, {
    hint: `Run recover from the directory of the package of ${version}.`,
  });
}

/** The package recover runs from, when it is the one of `version` (to load images a restore needs). */
async function packageOf(packageDir: string | null, version: string): Promise<string | null> {
  if (packageDir === null) return null;
  const manifest = await readManifestOf(version, [packageDir]).catch(() => null);
  return manifest === null ? null : packageDir;
}
