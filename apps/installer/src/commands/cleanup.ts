import { rm } from 'node:fs/promises';
import path from 'node:path';
import { defineCommand, OperatorError } from '@service/cli-kit';
import { failures, runChecks } from '../checks/all-checks.ts';
import { verifyBackup } from '../backup/verify-backup.ts';
import { BACKUPS_DIR } from '../install-dir/install-layout.ts';
import { findLeftovers } from '../install-dir/leftovers.ts';
import type { InstallerContext } from '../installer-context.ts';
import { describeBackup } from '../plan/describe-backup.ts';
import { gatherFacts } from '../plan/gather-facts.ts';
import { printChecks } from '../plan/print-checks.ts';
import { formatAge, formatBytes } from '../ui/human-units.ts';
import { HOME_OPTION, resolveHome, YES_OPTION } from './home-option.ts';

export const cleanupCommand = defineCommand<InstallerContext, { home: string; yes?: boolean }>({
  name: 'cleanup',
  summary:
    'Removes what upgrades and restores kept aside (.previous-*, *.before-restore-*, *_before_* databases) ' +
    'that is older than the newest verified backup',
  description:
    'The newest backup of the installed version is verified first (every checksum, each dump ' +
    'listable); only leftovers older than it are removed, after a list with their sizes and a ' +
    'confirmation. Backups themselves are never removed.',
  options: [HOME_OPTION, YES_OPTION],
  examples: ['./install.sh cleanup', './install.sh cleanup --home /srv/service --yes'],
  async run(ctx, input) {
    const home = resolveHome(input.home, ctx.cwd);
    const session = await ctx.openSession('cleanup', home);
    const { reporter, runtime } = session;
    try {
      const now = ctx.now();
      const facts = await gatherFacts({
        command: 'cleanup',
        home,
        now,
        runtime,
        config: ctx.config,
        reporter,
        packageDir: null,
        backupFile: null,
      });
      const checks = runChecks(facts);
      printChecks(reporter, checks);
      const failed = failures(checks);
      if (failed.length > 0)
        throw new OperatorError(`cleanup refused: ${failed[0]!.detail}`, { hint: failed[0]!.hint });
      const version = facts.installation.env!.values.get('SERVICE_VERSION')!;
      const newest = facts.installation.backups.find((b) => b.version === version);
      if (!newest)
        throw new OperatorError(`cleanup refused: there is no backup of ${version} in ${home}/${BACKUPS_DIR}`, {
          hint: `Take one first: \`./install.sh backup --home ${home}\`; leftovers older than it can then go.`,
        });
      let step = reporter.step(`Verify the newest backup, ${path.basename(newest.file)}`);
      try {
        await runtime.startDatabase();
        const verified = await verifyBackup(newest.file, runtime, path.join(home, BACKUPS_DIR, '.cleanup-verify'));
        step.done(`${verified.files} files match their checksums; ${verified.dumpEntries} dump entries listed`);
      } catch (err) {
        step.fail((err as Error).message);
        throw new OperatorError(
          `cleanup refused: the newest backup ${newest.file} does not verify: ${(err as Error).message}`,
          {
            hint: `Take a new backup (\`./install.sh backup --home ${home}\`) and run cleanup again.`,
          },
        );
      } finally {
        await rm(path.join(home, BACKUPS_DIR, '.cleanup-verify'), { recursive: true, force: true });
      }
      const { leftovers } = await findLeftovers(home, runtime, (l) => reporter.log(l));
      const older = leftovers.filter((l) => l.createdAt.getTime() < newest.createdAt.getTime());
      const newer = leftovers.filter((l) => l.createdAt.getTime() >= newest.createdAt.getTime());
      const label = (l: (typeof leftovers)[number]) =>
        `${l.kind === 'database' ? `database ${l.name}` : l.name} (${formatBytes(l.bytes)}, ` +
        `${formatAge(now.getTime() - l.createdAt.getTime())} old: ${l.what})`;
      for (const l of newer) reporter.info(`Kept, newer than the backup: ${label(l)}`);
      if (older.length === 0) {
        reporter.result(`Nothing to remove: no leftovers older than ${describeBackup(newest, now)}.`);
        return;
      }
      const total = older.reduce((n, l) => n + l.bytes, 0);
      reporter.info(`Older than ${describeBackup(newest, now)}, and to be removed:`);
      for (const l of older) reporter.info(`  ${label(l)}`);
      if (
        !input.yes &&
        !(await ctx.prompt.confirm(`Remove these ${older.length} leftover(s), ${formatBytes(total)}?`, false))
      )
        throw new OperatorError('cleanup not confirmed; nothing was removed', {
          hint: 'Run it again and answer y, or pass --yes.',
        });
      step = reporter.step(`Remove ${older.length} leftover(s)`);
      for (const l of older) {
        if (l.kind === 'database') {
          await runtime.sql(
            'postgres',
            `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${l.name}';\ndrop database if exists ${l.name}`,
          );
        } else await rm(path.join(home, l.name), { recursive: true, force: true });
        reporter.log(`removed ${l.name}`);
      }
      step.done();
      reporter.result(`Removed ${older.length} leftover(s), ${formatBytes(total)} freed.`);
    } finally {
      await session.close();
    }
  },
});
