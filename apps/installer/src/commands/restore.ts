import path from 'node:path';
import { defineCommand, OperatorError } from '@service/cli-kit';
import { failures, runChecks } from '../checks/all-checks.ts';
import type { InstallerContext } from '../installer-context.ts';
import { applyRestore } from '../plan/apply-restore.ts';
import { gatherFacts } from '../plan/gather-facts.ts';
import { printChecks } from '../plan/print-checks.ts';
import { holdInterrupts } from '../ui/hold-interrupts.ts';
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
      const outcome = await holdInterrupts(reporter, 'the restore', () =>
        applyRestore({
          home,
          packageDir,
          manifest,
          backupFile,
          installedVersion,
          runtime,
          reporter,
          clock: ctx.clock,
          now: ctx.now(),
          healthTimeoutMs: ctx.config.healthTimeoutMs,
          healthGraceMs: ctx.config.healthGraceMs,
        }),
      );
      reporter.info(
        `Kept from before the restore (remove once you have checked the service): ${outcome.keptAside.join('; ')}`,
      );
      reporter.result(
        `Restored ${path.basename(backupFile)}: ${home} runs ${manifest.version} ` +
          `(${(outcome.totalMs / 1000).toFixed(1)} s). Log: ${session.log.path}`,
      );
    } finally {
      await session.close();
    }
  },
});
