import path from 'node:path';
import { defineCommand, OperatorError } from '@service/cli-kit';
import { LIBRARY_DIR, SUMS_FILE } from '@service/release-kit';
import { readFile } from 'node:fs/promises';
import { installedReleaseUnits, releaseUnits } from '../install-dir/release-files.ts';
import type { InstallerContext } from '../installer-context.ts';
import { applyUpgrade } from '../plan/apply-upgrade.ts';
import { gatherFacts } from '../plan/gather-facts.ts';
import { libraryCounts } from '../plan/library-counts.ts';
import { planUpgrade } from '../plan/plan-upgrade.ts';
import { printChecks } from '../plan/print-checks.ts';
import { askLibraryImport } from '../plan/library-question.ts';
import { holdInterrupts } from '../ui/hold-interrupts.ts';
import { DRY_RUN_OPTION, HOME_OPTION, resolveHome, YES_OPTION } from './home-option.ts';

interface UpgradeInput {
  home: string;
  yes?: boolean;
  dryRun?: boolean;
  skipBackupCheck?: boolean;
}

export const upgradeCommand = defineCommand<InstallerContext, UpgradeInput>({
  name: 'upgrade',
  summary: 'Upgrades the installation to the release of this package',
  description:
    'Run it from the extracted package of the new version. It checks the package ' +
    'signature and every file, the version order, a backup of the installed version ' +
    'from the last 24 hours and the free space; states what will change and asks; ' +
    'loads the images while the old version runs; swaps the release files (keeping ' +
    'the replaced ones in .previous-<old>/); sets SERVICE_VERSION; recreates the ' +
    'changed containers and waits until the new version is healthy. On a failure it ' +
    'puts the previous version back, or, when the new version already changed the ' +
    'databases, stops and prints the restore command.',
  options: [
    HOME_OPTION,
    YES_OPTION,
    DRY_RUN_OPTION,
    {
      flags: '--skip-backup-check',
      description: 'upgrade even without a backup of the installed version from the last 24 hours',
    },
  ],
  examples: [
    './install.sh upgrade',
    './install.sh upgrade --home /srv/service --yes',
    './install.sh upgrade --dry-run',
  ],
  async run(ctx, input) {
    const packageDir = requirePackage(ctx);
    const home = resolveHome(input.home, ctx.cwd);
    const session = await ctx.openSession('upgrade', home);
    const { reporter, runtime } = session;
    try {
      const facts = await gatherFacts({
        command: 'upgrade',
        home,
        now: ctx.now(),
        runtime,
        config: ctx.config,
        reporter,
        packageDir,
        backupFile: null,
        skipBackupCheck: input.skipBackupCheck,
      });
      const manifest = facts.package?.verified?.manifest;
      const imagesPresent: Record<string, boolean> = {};
      if (manifest && facts.engine.ok)
        for (const image of manifest.images) imagesPresent[image.role] = await runtime.hasImage(image);
      const newUnits = manifest ? releaseUnits(await readFile(path.join(packageDir, SUMS_FILE), 'utf8')) : [];
      const library = manifest
        ? await libraryCounts(path.join(home, LIBRARY_DIR), path.join(packageDir, LIBRARY_DIR), (l) => reporter.log(l))
        : null;
      const plan = planUpgrade(facts, {
        imagesPresent,
        installedUnits: await installedReleaseUnits(home),
        newUnits,
        library,
        healthTimeoutMs: ctx.config.healthTimeoutMs,
        healthGraceMs: ctx.config.healthGraceMs,
      });
      printChecks(reporter, plan.checks);
      if (plan.kind === 'nothing-to-do') {
        reporter.result(`Already at ${plan.version}; nothing to upgrade.`);
        return;
      }
      if (plan.kind === 'refused') {
        const first = plan.failed[0]!;
        throw new OperatorError(
          `upgrade refused, nothing was changed: ` +
            `${first.detail}${plan.failed.length > 1 ? ` (and ${plan.failed.length - 1} more failed check(s) above)` : ''}`,
          { hint: first.hint },
        );
      }
      reporter.info(`Plan: ${plan.from} -> ${plan.to}`);
      plan.steps.forEach((s, i) => reporter.info(`  ${i + 1}. ${s}`));
      if (input.dryRun) {
        reporter.result(`Dry run: nothing was changed. Run without --dry-run to upgrade ${plan.from} -> ${plan.to}.`);
        return;
      }
      if (!input.yes && !(await ctx.prompt.confirm(`Upgrade ${home} from ${plan.from} to ${plan.to}?`, false))) {
        throw new OperatorError('upgrade not confirmed; nothing was changed', {
          hint: 'Run it again and answer y, or pass --yes.',
        });
      }
      const outcome = await holdInterrupts(reporter, 'the upgrade', () =>
        applyUpgrade({
          home,
          packageDir,
          manifest: manifest!,
          installedManifest: facts.installation.release.manifest,
          plan,
          runtime,
          reporter,
          clock: ctx.clock,
          healthTimeoutMs: ctx.config.healthTimeoutMs,
          healthGraceMs: ctx.config.healthGraceMs,
          latestBackup: facts.installation.backups.find((b) => b.version === plan.from) ?? null,
        }),
      );
      await askLibraryImport({
        counts: plan.library,
        home,
        version: plan.to,
        runtime,
        reporter,
        prompt: ctx.prompt,
        clock: ctx.clock,
        config: ctx.config,
      });
      reporter.result(
        `Upgraded ${home} from ${plan.from} to ${plan.to} in ` +
          `${(outcome.totalMs / 1000).toFixed(1)} s (the service was unavailable for ` +
          `${(outcome.unavailableMs / 1000).toFixed(1)} s). Log: ${session.log.path}`,
      );
    } finally {
      await session.close();
    }
  },
});

export function requirePackage(ctx: InstallerContext): string {
  if (ctx.packageDir === null) {
    throw new OperatorError('this command runs from an extracted package, and none was found', {
      hint: 'Extract service-X.Y.Z-offline.tar.gz, enter its folder and run ./install.sh from there.',
    });
  }
  return ctx.packageDir;
}
