import { decideUpgrade, type ImageRole, type ManifestImage } from '@service/release-kit';
import { failures, runChecks, type CheckResult, type Facts } from '../checks/all-checks.ts';
import { planFileSwap, type FileSwapPlan } from '../install-dir/release-files.ts';
import { formatAge } from '../ui/human-units.ts';

export interface LibraryCounts {
  added: number;
  updated: number;
  removed: number;
}

/** What gathering found beyond the checks' facts, for the plan. */
export interface UpgradeInputs {
  /** Per image role: whether the engine has the new manifest's image already. */
  imagesPresent: Partial<Record<ImageRole, boolean>>;
  installedUnits: string[];
  newUnits: string[];
  /** New and updated library items between the installed and the new release; null when unknown. */
  library: LibraryCounts | null;
  /** The restore point the upgrade will have, as the plan shows it. */
  restorePoint: RestorePointPlan;
  healthTimeoutMs: number;
  healthGraceMs: number;
}

/** What the plan says about the backup: a fresh one (the default), a recent one reused, or none. */
export type RestorePointPlan = { kind: 'take' } | { kind: 'reuse'; file: string; ageMs: number } | { kind: 'skip' };

export type UpgradePlan =
  | { kind: 'refused'; checks: CheckResult[]; failed: CheckResult[] }
  | { kind: 'nothing-to-do'; checks: CheckResult[]; version: string }
  | {
      kind: 'upgrade';
      checks: CheckResult[];
      from: string;
      to: string;
      imagesToLoad: ManifestImage[];
      /** Roles whose image differs from the installed release's: their containers are recreated. */
      recreate: ImageRole[];
      files: FileSwapPlan;
      library: LibraryCounts | null;
      /** The step list shown before confirmation (and by --dry-run). */
      steps: string[];
    };

/**
 * Pure: from the gathered facts, what `upgrade` will do, or why it will not. A package that fails
 * its signature or checksums is refused even when its version is the installed one.
 */
export function planUpgrade(facts: Facts, inputs: UpgradeInputs): UpgradePlan {
  const checks = runChecks(facts);
  const failed = failures(checks);
  const packageFailed = failed.filter((c) => c.id === 'package-signature' || c.id === 'package-files');
  if (packageFailed.length > 0) return { kind: 'refused', checks, failed: packageFailed };
  const manifest = facts.package?.verified?.manifest;
  const installed = facts.installation.env?.values.get('SERVICE_VERSION');
  if (manifest && installed && failed.every((c) => c.id !== 'env-file' && c.id !== 'installation')) {
    const decision = decideUpgrade(installed, manifest);
    if (decision.kind === 'same') return { kind: 'nothing-to-do', checks, version: decision.version };
  }
  if (failed.length > 0 || !manifest || !installed) return { kind: 'refused', checks, failed };

  const installedImages = facts.installation.release.manifest?.images ?? [];
  const imagesToLoad = manifest.images.filter((i) => inputs.imagesPresent[i.role] !== true);
  const recreate = manifest.images
    .filter((i) => installedImages.find((o) => o.role === i.role)?.digest !== i.digest)
    .map((i) => i.role);
  const files = planFileSwap(inputs.newUnits, inputs.installedUnits);
  const steps = [
    imagesToLoad.length > 0
      ? `Load ${imagesToLoad.length} image(s) ` +
        `(${imagesToLoad.map((i) => `${i.name}:${i.tag}`).join(', ')}) while ${installed} ` +
        `keeps running`
      : 'Images: all already loaded',
    inputs.restorePoint.kind === 'take'
      ? `Back up ${installed} (databases, files, configuration) right before the first change; the ` +
        `upgrade can always go back to it`
      : inputs.restorePoint.kind === 'reuse'
        ? `Reuse the backup ${inputs.restorePoint.file}, taken ${formatAge(inputs.restorePoint.ageMs)} ago ` +
          `(--reuse-backup); what is written after it would be lost by going back`
        : 'NO backup (--skip-backup): if the new version changes the databases and then fails, there is no way back',
    `Replace ${files.replace.length} release file(s) and folder(s) (compose.yaml, ` +
      `docker/, installer, library, ...); the replaced ones are kept in ` +
      `.previous-${installed}/`,
    'Keep .env, docker/Caddyfile, docker/certs/ and compose.override.yaml as they are',
    `Set SERVICE_VERSION=${manifest.version} in .env (that line only)`,
    `Recreate the containers whose image changed: ` +
      `${recreate.length > 0 ? recreate.join(', ') : 'none'}; the new app migrates the ` +
      `databases as it starts`,
    `Wait for /api/health (up to ${Math.round(inputs.healthTimeoutMs / 1000)} s), and ` +
      `for it to stay healthy for ${Math.round(inputs.healthGraceMs / 1000)} s`,
    inputs.library && inputs.library.added + inputs.library.updated > 0
      ? `Library: ${inputs.library.added} new and ${inputs.library.updated} updated ` +
        `item(s); you will be asked whether to import them (default no)`
      : 'Library: no new or updated items',
  ];
  return {
    kind: 'upgrade',
    checks,
    from: installed,
    to: manifest.version,
    imagesToLoad,
    recreate,
    files,
    library: inputs.library,
    steps,
  };
}
