import path from 'node:path';
import { defineCommand, OperatorError } from '@service/cli-kit';
import { failures, runChecks } from '../checks/all-checks.ts';
import type { InstallerContext } from '../installer-context.ts';
import type { Journal } from '../journal/journal.ts';
import {
  beginRestore,
  databasesSwapped,
  keptAside,
  RestoreDumpError,
  RestoredButNotStartingError,
  rollBackRestore,
  runRestore,
} from '../plan/apply-restore.ts';
import type { OperationContext } from '../plan/operation-context.ts';
import { gatherFacts } from '../plan/gather-facts.ts';
import { printChecks } from '../plan/print-checks.ts';
import { holdInterrupts, StoppedBySignal } from '../ui/hold-interrupts.ts';
import { DRY_RUN_OPTION, HOME_OPTION, resolveHome, YES_OPTION } from './home-option.ts';
import { requirePackage } from './upgrade.ts';

export const restoreCommand = defineCommand<
  InstallerContext,
  { backup: string; home: string; yes?: boolean; dryRun?: boolean }
>({
  name: 'restore',
  summary: 'Restores a backup; run it from the package of the version the backup was taken on',
  description:
    'The backup is verified, restored into new databases and swapped in by renaming, ' +
    'so a failed restore leaves the current data in place. The data before the ' +
    'restore is kept beside (databases *_before_<time>, ' +
    'data/app/files.before-restore-<time>, .before-restore-<time>/) until you remove ' +
    'it.',
  arguments: [{ name: 'backup', description: 'the backup archive, backups/service-<version>-<time>.tar.gz' }],
  options: [HOME_OPTION, YES_OPTION, DRY_RUN_OPTION],
  examples: ['./install.sh restore /opt/service/backups/service-1.3.0-20261120T020000Z.tar.gz'],
  async run(ctx, input) {
    const packageDir = requirePackage(ctx);
    const home = resolveHome(input.home, ctx.cwd);
    const backupFile = path.resolve(ctx.cwd, input.backup);
    const session = await ctx.openSession('restore', home);
    const { reporter, runtime } = session;
    try {
      const facts = await gatherFacts({
        command: 'restore',
        home,
        now: ctx.now(),
        runtime,
        config: ctx.config,
        reporter,
        packageDir,
        backupFile,
      });
      const checks = runChecks(facts);
      printChecks(reporter, checks);
      const failed = failures(checks);
      if (failed.length > 0)
        throw new OperatorError(`restore refused, nothing was changed: ${failed[0]!.detail}`, {
          hint: failed[0]!.hint,
        });
      const manifest = facts.package!.verified!.manifest;
      const backup = facts.backup!.manifest!;
      const installedVersion = facts.installation.env!.values.get('SERVICE_VERSION')!;
      reporter.info(
        `Plan: restore the backup of ${backup.version} taken at ${backup.createdAt} into ` +
          `${home} (now at ${installedVersion})`,
      );
      for (const line of [
        'Verify every checksum of the backup and that each dump can be listed',
        'Stop the app; restore the three dumps into new databases beside the current ones',
        'Swap the databases by renaming (the current ones are kept as *_before_<time>), ' +
          'then the file storage and configuration',
        `Put the release files of ${manifest.version} in place and SERVICE_VERSION=${manifest.version}`,
        'Start and wait for /api/health',
      ].entries())
        reporter.info(`  ${line[0] + 1}. ${line[1]}`);
      if (input.dryRun) {
        reporter.result('Dry run: nothing was changed.');
        return;
      }
      if (!input.yes && !(await ctx.prompt.confirm(`Restore ${path.basename(backupFile)} into ${home}?`, false))) {
        throw new OperatorError('restore not confirmed; nothing was changed', {
          hint: 'Run it again and answer y, or pass --yes.',
        });
      }
      const outcome = await holdInterrupts(reporter, 'the restore', async (hold) => {
        const journal = await beginRestore(session.op, {
          packageDir,
          version: manifest.version,
          installedVersion,
          backup: { file: backupFile, createdAt: backup.createdAt },
        });
        try {
          const restored = await runRestore(session.op, journal, { packageDir, manifest, hold });
          await journal.finish('succeeded', `restored ${path.basename(backupFile)}`);
          return restored;
        } catch (err) {
          throw await failRestore(session.op, journal, err);
        }
      });
      reporter.info(
        `Kept from before the restore (remove with \`./install.sh cleanup --home ${home}\` once you have ` +
          `checked the service): ${outcome.keptAside.join('; ')}`,
      );
      reporter.result(
        `Restored ${path.basename(backupFile)}: ${home} runs ${manifest.version} ` +
          `(${(outcome.totalMs / 1000).toFixed(1)} s). Log: ${session.log.path ?? 'not written'}`,
      );
    } finally {
      await session.close();
    }
  },
});

/**
 * What a failed restore leaves, and the error that says so. Before the databases were swapped in
 * everything is put back in this process; after it (or when that cannot be told) the journal
 * stays, and `recover` finishes the restore.
 */
async function failRestore(op: OperationContext, journal: Journal, err: unknown): Promise<OperatorError> {
  const record = journal.record;
  const reason = (err as Error).message;
  if (err instanceof StoppedBySignal) {
    await rollBackRestore(op, record).catch(() => {});
    await journal.finish('failed-nothing-changed', reason);
    return err;
  }
  const swapped = await databasesSwapped(op, record).catch(() => null);
  if (swapped === false) {
    try {
      await rollBackRestore(op, record);
    } catch (undoErr) {
      await journal.tryUpdate({
        stopped: {
          reason: `${reason}; undoing it failed too: ${(undoErr as Error).message}`,
          at: op.now().toISOString(),
        },
      });
      return new OperatorError(
        `the restore failed (${reason}) and putting ${record.from} back also failed: ${(undoErr as Error).message}`,
        {
          hint: `Free what is short (see the log in ${op.home}/logs/), then run \`./install.sh recover --home ${op.home}\`.`,
        },
      );
    }
    await journal.finish('rolled-back', reason);
    return err instanceof RestoreDumpError
      ? new OperatorError(
          `the restore failed while loading the dumps: ${reason}. The current databases were not touched and ` +
            `${record.from} runs again`,
          { hint: 'See the log file; if the backup is damaged, restore another one.' },
        )
      : new OperatorError(
          `the restore failed: ${reason}. The current data was not touched and ${record.from} runs again`,
          { hint: (err as OperatorError).hint ?? `See the log in ${op.home}/logs/.` },
        );
  }
  await journal.tryUpdate({ stopped: { reason, at: op.now().toISOString() } });
  return new OperatorError(
    err instanceof RestoredButNotStartingError
      ? `the restored data is in place but ${record.to} does not start: ${reason}`
      : `the restore stopped after the restored databases were swapped in: ${reason}`,
    {
      hint:
        `Fix the cause (see the log in ${op.home}/logs/), then run \`./install.sh recover --home ${op.home}\`: ` +
        `it finishes the restore. Kept from before: ${keptAside(op.home, record).join('; ')}.`,
    },
  );
}
