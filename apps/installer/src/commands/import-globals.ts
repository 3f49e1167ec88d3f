import { defineCommand, OperatorError } from '@service/cli-kit';
import { failures, runChecks } from '../checks/all-checks.ts';
import type { InstallerContext } from '../installer-context.ts';
import { gatherFacts } from '../plan/gather-facts.ts';
import { beginJournal } from '../journal/journal.ts';
import { describeImport, importGlobalsNow } from '../plan/library-question.ts';
import { holdInterrupts } from '../ui/hold-interrupts.ts';
import { printChecks } from '../plan/print-checks.ts';
import { HOME_OPTION, resolveHome, YES_OPTION } from './home-option.ts';

export const importGlobalsCommand = defineCommand<InstallerContext, { home: string; yes?: boolean }>({
  name: 'import-globals',
  summary: 'Imports the global library shipped in the installed release (overwrites user edits to global items)',
  description: 'Items users made themselves are never touched. The service restarts to import.',
  options: [HOME_OPTION, YES_OPTION],
  examples: ['./install.sh import-globals', './install.sh import-globals --yes'],
  async run(ctx, input) {
    const home = resolveHome(input.home, ctx.cwd);
    const session = await ctx.openSession('import-globals', home);
    const { reporter, runtime } = session;
    try {
      const facts = await gatherFacts({
        command: 'import-globals',
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
      if (failed.length > 0)
        throw new OperatorError(`import-globals refused: ${failed[0]!.detail}`, { hint: failed[0]!.hint });
      const version = facts.installation.env!.values.get('SERVICE_VERSION')!;
      if (
        !input.yes &&
        !(await ctx.prompt.confirm(
          `Import the global library of ${version}, overwriting users' edits to global items?`,
          false,
        ))
      ) {
        throw new OperatorError('import not confirmed; nothing was changed', {
          hint: 'Run it again and answer y, or pass --yes.',
        });
      }
      const applied = await holdInterrupts(reporter, 'the import', async (hold) => {
        hold.changing();
        const journal = await beginJournal(
          home,
          {
            operation: 'import-globals',
            log: session.op.logFile,
            packageDir: null,
            from: version,
            to: version,
            backup: null,
            fromSchemaHeads: null,
            stamp: null,
          },
          { now: ctx.now, faults: session.faults, log: (l) => reporter.log(l) },
        );
        const result = await importGlobalsNow(session.op, journal, version, {
          request: 'request',
          restart: 'restart',
        });
        await journal.finish('succeeded', result ? describeImport(result) : 'imported');
        return result;
      });
      reporter.result(
        `The global library of ${version} was imported` +
          `${applied ? `: ${describeImport(applied)}` : ''}; the service is healthy.`,
      );
    } finally {
      await session.close();
    }
  },
});
