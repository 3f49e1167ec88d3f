import path from 'node:path';
import { defineCommand } from '@service/cli-kit';
import { runChecks } from '../checks/all-checks.ts';
import { findLeftovers } from '../install-dir/leftovers.ts';
import { describeUnfinishedRun, type InstallerContext } from '../installer-context.ts';
import { readLastOutcome, type RunOutcome } from '../journal/journal.ts';
import { observeForRecovery } from '../plan/apply-recovery.ts';
import { gatherFacts } from '../plan/gather-facts.ts';
import { planRecovery } from '../plan/plan-recovery.ts';
import { printChecks } from '../plan/print-checks.ts';
import { describeInstalledLicense } from '../plan/read-license.ts';
import { formatAge, formatBytes } from '../ui/human-units.ts';
import { HOME_OPTION, resolveHome } from './home-option.ts';

export const statusCommand = defineCommand<InstallerContext, { home: string }>({
  name: 'status',
  summary:
    'Shows the installed and running version, containers, licence, free disk, last ' +
    'backup, the last upgrade and restore, leftovers, an unfinished run and the pre-flight checks (read-only)',
  options: [HOME_OPTION],
  examples: ['./install.sh status', './install.sh status --home /srv/service'],
  async run(ctx, input) {
    const home = resolveHome(input.home, ctx.cwd);
    const session = await ctx.openSession('status', home);
    const { reporter, runtime } = session;
    try {
      const now = ctx.now();
      const facts = await gatherFacts({
        command: 'status',
        home,
        now,
        runtime,
        config: ctx.config,
        reporter,
        packageDir: null,
        backupFile: null,
      });
      const { installation } = facts;
      const env = installation.env?.values ?? new Map<string, string>();
      const release = installation.release;
      const line = (label: string, value: string) => reporter.info(`  ${label.padEnd(18)} ${value}`);
      reporter.info(`Installation ${home} (${runtime.describe()})`);
      line('installed version', `${env.get('SERVICE_VERSION') ?? 'unknown'} (SERVICE_VERSION in .env)`);
      line('running version', installation.runningVersion ?? 'no answer from /api/version');
      line(
        'package signer',
        release.signer
          ? `key ${release.signer.keyId}${release.signer.vendor ? ' (vendor)' : ' (configured key, not the vendor)'}`
          : `unknown (${release.problem})`,
      );
      const containers = facts.engine.ok ? await runtime.containers() : [];
      line(
        'containers',
        containers.length === 0
          ? 'none'
          : containers.map((c) => `${c.service} ${c.state}${c.health ? ` (${c.health})` : ''}`).join(', '),
      );
      line('licence', await describeInstalledLicense(home, env, now));
      const disk = facts.disks[0];
      line('free disk', disk ? `${formatBytes(disk.freeBytes)} on ${disk.dir}` : 'unknown');
      const last = installation.backups[0];
      line(
        'last backup',
        last
          ? `${path.relative(home, last.file)} (${last.version}, ${formatAge(now.getTime() - last.createdAt.getTime())} ago, ${formatBytes(last.bytes)})`
          : 'none',
      );
      const attention: string[] = [];
      for (const operation of ['upgrade', 'restore'] as const) {
        const outcome = await readLastOutcome(home, operation);
        if (!outcome) continue;
        line(`last ${operation}`, describeOutcome(outcome, now));
        if (outcome.result !== 'succeeded' && !session.journal) attention.push(`the last ${operation} failed`);
      }
      const databaseRunning = containers.some((c) => c.service === 'db' && c.state === 'running');
      const { leftovers, databasesListed } = await findLeftovers(home, databaseRunning ? runtime : null, (l) =>
        reporter.log(l),
      );
      const total = leftovers.reduce((n, l) => n + l.bytes, 0);
      line(
        'leftovers',
        leftovers.length === 0
          ? `none${databasesListed ? '' : ' (databases not listed: the database is not running)'}`
          : `${leftovers.length}, ${formatBytes(total)}${databasesListed ? '' : ' (databases not listed: the database is not running)'}`,
      );
      for (const l of leftovers)
        reporter.info(
          `    ${l.kind === 'database' ? `database ${l.name}` : l.name} ${formatBytes(l.bytes)}, ` +
            `${formatAge(now.getTime() - l.createdAt.getTime())} old: ${l.what}`,
        );
      if (leftovers.length > 0 && !session.journal)
        reporter.info(`    remove those older than the newest backup with: ./install.sh cleanup --home ${home}`);

      let unfinished: string | null = null;
      if (session.journal) {
        const journal = session.journal;
        const recovery = planRecovery({
          ...(await observeForRecovery(session.op, journal, { startDatabase: false })),
          databaseStopped: !databaseRunning,
        });
        const from = journal.packageDir ? `cd ${journal.packageDir} && ` : '';
        unfinished = `./install.sh recover --home ${home}`;
        reporter.warn(`UNFINISHED: ${describeUnfinishedRun(journal)}.`);
        reporter.info(`  state              ${recovery.summary}`);
        if (recovery.action === 'stuck') reporter.info(`  what to do         ${recovery.hint}`);
        else {
          reporter.info(`  what to do         ${from}${unfinished}`);
          reporter.info(
            `                     (from this or any newer package folder; it asks before it changes anything)`,
          );
        }
        if (journal.log) reporter.info(`  log of that run    ${journal.log}`);
      }
      const checks = runChecks(facts);
      printChecks(reporter, checks);
      const problems = checks.filter((c) => c.status === 'fail' || c.status === 'warn').map((p) => p.title);
      problems.push(...attention);
      reporter.result(
        unfinished
          ? `Status: an unfinished ${session.journal!.operation}; run \`${unfinished}\`.`
          : problems.length === 0
            ? 'Status: everything is in order.'
            : `Status: ${problems.length} thing(s) to look at: ${problems.join(', ')}.`,
      );
    } finally {
      await session.close();
    }
  },
});

const RESULTS: Record<RunOutcome['result'], string> = {
  succeeded: 'succeeded',
  'failed-nothing-changed': 'FAILED before changing anything',
  'rolled-back': 'FAILED and was rolled back',
  'recovered-back': 'did not finish; recover went back',
  'recovered-forward': 'did not finish; recover finished it',
  'resolved-by-hand': 'did not finish; put right by hand (recover --mark-resolved)',
};

function describeOutcome(outcome: RunOutcome, now: Date): string {
  const what = outcome.operation === 'upgrade' ? `${outcome.from} -> ${outcome.to}` : `of a backup of ${outcome.to}`;
  const when = `${formatAge(now.getTime() - Date.parse(outcome.endedAt))} ago`;
  return (
    `${what}, ${when}: ${RESULTS[outcome.result]}` +
    `${outcome.result === 'succeeded' ? '' : ` (${outcome.detail})`}${outcome.log ? `; log ${outcome.log}` : ''}`
  );
}
