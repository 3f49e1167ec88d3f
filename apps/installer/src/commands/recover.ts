import path from 'node:path';
import { defineCommand, OperatorError } from '@service/cli-kit';
import { readBackupManifest } from '../plan/gather-facts.ts';
import { describeUnfinishedRun, type InstallerContext } from '../installer-context.ts';
import { Journal, readLastOutcome } from '../journal/journal.ts';
import { applyRecovery, observeForRecovery } from '../plan/apply-recovery.ts';
import { planRecovery } from '../plan/plan-recovery.ts';
import { holdInterrupts } from '../ui/hold-interrupts.ts';
import { HOME_OPTION, resolveHome, YES_OPTION } from './home-option.ts';

interface RecoverInput {
  home: string;
  yes?: boolean;
  backup?: string;
  markResolved?: boolean;
}

export const recoverCommand = defineCommand<InstallerContext, RecoverInput>({
  name: 'recover',
  summary:
    'Finishes or undoes an upgrade, restore or import that did not finish (crash, kill, full disk, lost session)',
  description:
    'Reads .installer/journal.json and what the installation looks like now, says what it will ' +
    'do and asks: go back where that is safe (nothing changed yet, or the new version did not ' +
    'touch the databases), forward where the new state is complete (the new version answers ' +
    'healthy, or a restore had swapped its databases in), or restore the backup taken before an ' +
    'upgrade whose new version changed the databases and does not work. Afterwards the ' +
    'installation runs one version with its data. Safe to run again if it is interrupted itself.',
  options: [
    HOME_OPTION,
    YES_OPTION,
    {
      flags: '--backup <file>',
      description: 'restore this backup (of the version before the upgrade) instead of the one the upgrade took',
    },
    {
      flags: '--mark-resolved',
      description: 'forget the unfinished run after you have put the installation right by hand (asks first)',
    },
  ],
  examples: ['./install.sh recover', './install.sh recover --home /srv/service --yes'],
  async run(ctx, input) {
    const home = resolveHome(input.home, ctx.cwd);
    const session = await ctx.openSession('recover', home);
    const { reporter } = session;
    try {
      const record = session.journal;
      if (record === null) {
        const last = (await readLastOutcome(home, 'upgrade')) ?? (await readLastOutcome(home, 'restore'));
        reporter.result(
          `Nothing to recover: no unfinished installer run in ${home}.` +
            `${last ? ` The last ${last.operation} ended: ${last.result}.` : ''}`,
        );
        return;
      }
      reporter.warn(`${describeUnfinishedRun(record)}.`);
      if (record.log) reporter.info(`Log of that run: ${record.log}`);
      const journal = Journal.resume(home, record, {
        now: ctx.now,
        faults: session.faults,
        log: (l) => reporter.log(l),
      });

      if (input.markResolved) {
        if (
          !(await ctx.prompt.confirm(
            'Forget this run? Do this only when you have put the installation right by hand; recover then does nothing.',
            false,
          ))
        )
          throw new OperatorError('not confirmed; nothing was changed', {
            hint: 'Run recover without --mark-resolved.',
          });
        await journal.finish('resolved-by-hand', 'marked resolved by hand');
        reporter.result(`The unfinished ${record.operation} is forgotten; ${home} is as you left it.`);
        return;
      }

      const backupOverride = input.backup ? await readOverride(path.resolve(ctx.cwd, input.backup), record.from) : null;
      const facts = await observeForRecovery(session.op, record, { startDatabase: true, backupOverride });
      const plan = planRecovery(facts);
      reporter.info(`State: ${plan.summary}.`);
      if (plan.action === 'stuck')
        throw new OperatorError(`recover cannot go on: ${plan.summary}`, { hint: plan.hint });
      reporter.info('Plan:');
      for (const [i, s] of plan.steps.entries()) reporter.info(`  ${i + 1}. ${s}`);
      if (!input.yes && !(await ctx.prompt.confirm(`Recover ${home} this way?`, false)))
        throw new OperatorError('recover not confirmed; nothing was changed', {
          hint: 'Run it again and answer y, or pass --yes.',
        });
      const outcome = await holdInterrupts(reporter, 'the recovery', async (hold) => {
        hold.changing();
        try {
          return await applyRecovery(session.op, journal, plan, { packageDir: ctx.packageDir, backupOverride });
        } catch (err) {
          if (err instanceof OperatorError) throw err;
          throw new OperatorError(`recover stopped: ${(err as Error).message}`, {
            hint:
              `Fix the cause (see the log in ${home}/logs/), then run \`./install.sh recover --home ${home}\` ` +
              'again: it goes on from where the installation is now.',
            cause: err,
          });
        }
      });
      reporter.result(
        `Recovered: ${home} runs ${outcome.version}; ${outcome.message}. Log: ${session.log.path ?? 'not written'}`,
      );
    } finally {
      await session.close();
    }
  },
});

/** A backup named by --backup: it must be a backup of the version the installation goes back to. */
async function readOverride(file: string, version: string): Promise<{ file: string; createdAt: string }> {
  const manifest = await readBackupManifest(file).catch((err: Error) => {
    throw new OperatorError(`--backup ${file} cannot be read: ${err.message}`, {
      hint: 'Name a backup written by `install.sh backup` or `upgrade`.',
    });
  });
  if (manifest.version !== version)
    throw new OperatorError(`--backup ${file} was taken on ${manifest.version}; going back needs one of ${version}`, {
      hint: `Name a backup of ${version} (backups/service-${version}-<time>.tar.gz).`,
    });
  return { file, createdAt: manifest.createdAt };
}
