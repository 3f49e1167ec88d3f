import path from 'node:path';
import { defineCommand } from '@service/cli-kit';
import { runChecks } from '../checks/all-checks.ts';
import type { InstallerContext } from '../installer-context.ts';
import { gatherFacts } from '../plan/gather-facts.ts';
import { printChecks } from '../plan/print-checks.ts';
import { describeInstalledLicense } from '../plan/read-license.ts';
import { HOME_OPTION, resolveHome } from './home-option.ts';

export const statusCommand = defineCommand<InstallerContext, { home: string }>({
  name: 'status',
  summary:
    'Shows the installed and running version, containers, licence, free disk, last ' +
    'backup and the pre-flight checks (read-only)',
  options: [HOME_OPTION],
  examples: ['./install.sh status', './install.sh status --home /srv/service'],
  async run(ctx, input) {
    const home = resolveHome(input.home, ctx.cwd);
    const session = await ctx.openSession('status', home);
    const { reporter, runtime } = session;
    try {
      const facts = await gatherFacts({
        command: 'status',
        home,
        now: ctx.now(),
        runtime,
        config: ctx.config,
        reporter,
        packageDir: null,
        backupFile: null,
      });
      const { installation } = facts;
      const env = installation.env?.values ?? new Map<string, string>();
      const release = installation.release;
      reporter.info(`Installation ${home} (${runtime.describe()})`);
      reporter.info(`  installed version  ${env.get('SERVICE_VERSION') ?? 'unknown'} (SERVICE_VERSION in .env)`);
      reporter.info(`  running version    ${installation.runningVersion ?? 'no answer from /api/version'}`);
      reporter.info(
        `  package signer     ` +
          `${release.signer ? `key ${release.signer.keyId}${release.signer.vendor ? ' (vendor)' : ' (configured key, not the vendor)'}` : `unknown (${release.problem})`}`,
      );
      const containers = facts.engine.ok ? await runtime.containers() : [];
      reporter.info(
        `  containers         ` +
          `${containers.length === 0 ? 'none' : containers.map((c) => `${c.service} ${c.state}${c.health ? ` (${c.health})` : ''}`).join(', ')}`,
      );
      reporter.info(`  licence            ${await describeInstalledLicense(home, env, ctx.now())}`);
      const disk = facts.disks[0];
      reporter.info(
        `  free disk          ${disk ? `${(disk.freeBytes / 1024 ** 3).toFixed(2)} GiB on ${disk.dir}` : 'unknown'}`,
      );
      const last = installation.backups[0];
      reporter.info(
        `  last backup        ` +
          `${last ? `${path.relative(home, last.file)} (${last.version}, ${ago(ctx.now().getTime() - last.createdAt.getTime())} ago, ${(last.bytes / 1024 / 1024).toFixed(1)} MiB)` : 'none'}`,
      );
      const checks = runChecks(facts);
      printChecks(reporter, checks);
      const problems = checks.filter((c) => c.status === 'fail' || c.status === 'warn');
      reporter.result(
        problems.length === 0
          ? 'Status: everything is in order.'
          : `Status: ${problems.length} thing(s) to look at: ${problems.map((p) => p.title).join(', ')}.`,
      );
    } finally {
      await session.close();
    }
  },
});

function ago(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
}
