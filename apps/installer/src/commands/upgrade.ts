import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { defineCommand, OperatorError } from '@service/cli-kit';
import { SUMS_FILE } from '@service/release-kit';
import { installedReleaseUnits, releaseUnits } from '../install-dir/release-files.ts';
import type { InstallerContext } from '../installer-context.ts';
import { applyUpgrade, type BackupChoice } from '../plan/apply-upgrade.ts';
import { describeBackup } from '../plan/describe-backup.ts';
import { gatherFacts } from '../plan/gather-facts.ts';
import { libraryCounts } from '../plan/library-counts.ts';
import { askLibraryImport, describeImport, importGlobalsNow } from '../plan/library-question.ts';
import { planUpgrade, type RestorePointPlan } from '../plan/plan-upgrade.ts';
import { printChecks } from '../plan/print-checks.ts';
import { holdInterrupts } from '../ui/hold-interrupts.ts';
import { DRY_RUN_OPTION, HOME_OPTION, resolveHome, YES_OPTION } from './home-option.ts';

/** How old a backup `--reuse-backup` takes instead of a fresh one. */
export const REUSE_BACKUP_MAX_AGE_MS = 15 * 60 * 1000;

interface UpgradeInput {
  home: string;
  yes?: boolean;
  dryRun?: boolean;
  reuseBackup?: boolean;
  skipBackup?: boolean;
}

export const upgradeCommand = defineCommand<InstallerContext, UpgradeInput>({
  name: 'upgrade',
  summary: 'Upgrades the installation to the release of this package',
  description:
    'Run it from the extracted package of the new version. It checks the package ' +
    'signature and every file, the version order, the container engine and the free ' +
    'space; states what will change and asks; loads the images while the old version ' +
    'runs; takes a backup right before the first change; swaps the release files ' +
    '(keeping the replaced ones in .previous-<old>/); sets SERVICE_VERSION; recreates the ' +
    'changed containers and waits until the new version is healthy. On a failure it ' +
    'puts the previous version back, or, when the new version already changed the ' +
    'databases, stops and tells you to run `recover`, which restores that backup. Each ' +
    'step is recorded in .installer/journal.json: after a crash, `status` says what to do.',
  options: [
    HOME_OPTION,
    YES_OPTION,
    DRY_RUN_OPTION,
    {
      flags: '--reuse-backup',
      description: `use a backup of the installed version taken in the last ${REUSE_BACKUP_MAX_AGE_MS / 60_000} minutes instead of taking one`,
    },
    {
      flags: '--skip-backup',
      description: 'take no backup (asks for confirmation, even with --yes): a failure after migrating has no way back',
    },
  ],
  examples: [
    './install.sh upgrade',
    './install.sh upgrade --home /srv/service --yes',
    './install.sh upgrade --dry-run',
    './install.sh upgrade --reuse-backup',
  ],
  async run(ctx, input) {
    const packageDir = requirePackage(ctx);
    const home = resolveHome(input.home, ctx.cwd);
    if (input.reuseBackup && input.skipBackup)
      throw new OperatorError('--reuse-backup and --skip-backup exclude each other', {
        hint: 'Give one of them, or neither (a fresh backup is taken).',
        exitCode: 2,
      });
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
      });
      const manifest = facts.package?.verified?.manifest;
      const imagesPresent: Record<string, boolean> = {};
      if (manifest && facts.engine.ok)
        for (const image of manifest.images) imagesPresent[image.role] = await runtime.hasImage(image);
      const newUnits = manifest ? releaseUnits(await readFile(path.join(packageDir, SUMS_FILE), 'utf8')) : [];
      const library = manifest
        ? await libraryCounts(
            home,
            packageDir,
            { installed: facts.installation.release.manifest, next: manifest },
            (l) => reporter.log(l),
          )
        : null;
      const installed = facts.installation.env?.values.get('SERVICE_VERSION');
      const choice = chooseBackup(input, facts.installation.backups, installed, ctx.now());
      const plan = planUpgrade(facts, {
        imagesPresent,
        installedUnits: await installedReleaseUnits(home),
        newUnits,
        library,
        restorePoint: restorePointPlan(choice, ctx.now()),
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
      if (input.reuseBackup && choice.kind === 'take')
        reporter.warn(
          `no backup of ${plan.from} from the last ${REUSE_BACKUP_MAX_AGE_MS / 60_000} minutes to reuse; a new one is taken`,
        );
      reporter.info(`Plan: ${plan.from} -> ${plan.to}`);
      for (const [i, s] of plan.steps.entries()) reporter.info(`  ${i + 1}. ${s}`);
      if (input.dryRun) {
        reporter.result(`Dry run: nothing was changed. Run without --dry-run to upgrade ${plan.from} -> ${plan.to}.`);
        return;
      }
      if (!input.yes && !(await ctx.prompt.confirm(`Upgrade ${home} from ${plan.from} to ${plan.to}?`, false))) {
        throw new OperatorError('upgrade not confirmed; nothing was changed', {
          hint: 'Run it again and answer y, or pass --yes.',
        });
      }
      // Why asked even with --yes: going without a way back must be a decision, not a default.
      if (
        choice.kind === 'skip' &&
        !(await ctx.prompt.confirm(
          `Upgrade WITHOUT a backup? If ${plan.to} changes the databases and then fails, nothing brings this data back.`,
          false,
        ))
      ) {
        throw new OperatorError('upgrade without a backup not confirmed; nothing was changed', {
          hint: 'Run it without --skip-backup (a backup is taken), or answer y.',
        });
      }
      const result = await holdInterrupts(reporter, 'the upgrade', async (hold) => {
        const outcome = await applyUpgrade(session.op, {
          packageDir,
          manifest: manifest!,
          installedManifest: facts.installation.release.manifest,
          plan,
          backup: choice,
          hold,
        });
        const importNow = await askLibraryImport({
          counts: plan.library,
          home,
          version: plan.to,
          reporter,
          prompt: ctx.prompt,
        });
        const applied = importNow
          ? await importGlobalsNow(session.op, outcome.journal, plan.to, { request: 'library', restart: 'library' })
          : null;
        await outcome.journal.finish('succeeded', `upgraded ${plan.from} -> ${plan.to}`);
        return { outcome, applied };
      });
      const { outcome, applied } = result;
      reporter.result(
        `Upgraded ${home} from ${plan.from} to ${plan.to} in ` +
          `${(outcome.totalMs / 1000).toFixed(1)} s (the service was unavailable for ` +
          `${(outcome.unavailableMs / 1000).toFixed(1)} s).` +
          `${applied ? ` Library imported: ${describeImport(applied)}.` : ''}` +
          ` Restore point: ${outcome.backup ? describeBackup(outcome.backup, ctx.now()) : 'none (--skip-backup)'}.` +
          ` Log: ${session.log.path ?? 'not written'}`,
      );
    } finally {
      await session.close();
    }
  },
});

/** A fresh backup, unless --reuse-backup finds one of the installed version from the last minutes, or --skip-backup. */
function chooseBackup(
  input: UpgradeInput,
  backups: Array<{ file: string; version: string; createdAt: Date; bytes: number }>,
  installed: string | undefined,
  now: Date,
): BackupChoice {
  if (input.skipBackup) return { kind: 'skip' };
  if (input.reuseBackup && installed) {
    const recent = backups.find(
      (b) =>
        b.version === installed &&
        now.getTime() - b.createdAt.getTime() <= REUSE_BACKUP_MAX_AGE_MS &&
        now.getTime() >= b.createdAt.getTime() - 60_000,
    );
    if (recent) return { kind: 'reuse', backup: recent };
  }
  return { kind: 'take' };
}

function restorePointPlan(choice: BackupChoice, now: Date): RestorePointPlan {
  if (choice.kind === 'reuse')
    return { kind: 'reuse', file: choice.backup.file, ageMs: now.getTime() - choice.backup.createdAt.getTime() };
  return choice;
}

export function requirePackage(ctx: InstallerContext): string {
  if (ctx.packageDir === null) {
    throw new OperatorError('this command runs from an extracted package, and none was found', {
      hint: 'Extract service-X.Y.Z-offline.tar.gz, enter its folder and run ./install.sh from there.',
    });
  }
  return ctx.packageDir;
}
