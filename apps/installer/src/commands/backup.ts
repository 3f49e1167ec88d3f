import { defineCommand, OperatorError } from '@service/cli-kit';
import { packageFileName } from '@service/release-kit';
import { createBackup } from '../backup/create-backup.ts';
import { failures, runChecks } from '../checks/all-checks.ts';
import type { InstallerContext } from '../installer-context.ts';
import { gatherFacts } from '../plan/gather-facts.ts';
import { printChecks } from '../plan/print-checks.ts';
import { HOME_OPTION, resolveHome } from './home-option.ts';
import { formatBytes } from '../ui/human-units.ts';

export const backupCommand = defineCommand<InstallerContext, { home: string }>({
  name: 'backup',
  summary:
    'Writes backups/service-<version>-<time>.tar.gz: the three databases, the file ' +
    'storage and the configuration, verified',
  description:
    'The service keeps running. The backup is the only way back to the version ' +
    'running now: it is restored with the package of that version.',
  options: [HOME_OPTION],
  examples: ['./install.sh backup', './install.sh backup --home /srv/service'],
  async run(ctx, input) {
    const home = resolveHome(input.home, ctx.cwd);
    const session = await ctx.openSession('backup', home);
    const { reporter, runtime } = session;
    try {
      const facts = await gatherFacts({
        command: 'backup',
        home,
        now: ctx.now(),
        runtime,
        config: ctx.config,
        reporter,
        packageDir: null,
        backupFile: null,
      });
      const checks = runChecks(facts);
      printChecks(reporter, checks);
      const failed = failures(checks);
      if (failed.length > 0) throw new OperatorError(`backup refused: ${failed[0]!.detail}`, { hint: failed[0]!.hint });
      const version = facts.installation.env!.values.get('SERVICE_VERSION')!;
      const backup = await createBackup({ home, version, runtime, reporter, now: ctx.now() });
      reporter.result(
        `Backup written: ${backup.file} (${formatBytes(backup.bytes)}, ` +
          `version ${version}). Restore it from the folder of ${packageFileName(version)} ` +
          `with: ./install.sh restore ${backup.file} --home ${home}`,
      );
    } finally {
      await session.close();
    }
  },
});
