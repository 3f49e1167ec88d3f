import semver from 'semver';
import { ReleaseKitError } from './release-kit-error.ts';
import { packageFileName } from './package-layout.ts';

// The only module that compares release versions. Everything else asks it.

/**
 * A release version exactly as semver writes it (`1.4.0`, `2.0.0-rc.1`). No `v` prefix, no
 * coercion of `1.4`: a version that is not spelled exactly would be compared by guesswork. No
 * build metadata (`+build.5`) either: semver ignores it when comparing, so two different packages
 * would count as the same version, and an image tag cannot hold a `+`.
 */
export function parseReleaseVersion(raw: string, what = 'version'): string {
  const text = raw.trim();
  const parsed = semver.valid(text);
  if (parsed === null || parsed !== text) {
    throw new ReleaseKitError('invalid_version', `${what} "${raw}" is not a semantic version such as 1.4.0`, {
      hint: 'Write the version as MAJOR.MINOR.PATCH (optionally -prerelease), without a "v".',
    });
  }
  return parsed;
}

export function isReleaseVersion(raw: string): boolean {
  return semver.valid(raw) === raw;
}

/** Negative when a < b, zero when equal, positive when a > b (semver precedence: 1.0.0-rc.1 < 1.0.0). */
export function compareVersions(a: string, b: string): number {
  return semver.compare(parseReleaseVersion(a), parseReleaseVersion(b));
}

export type UpgradeDecision =
  | { kind: 'upgrade'; from: string; to: string }
  | { kind: 'same'; version: string }
  | { kind: 'older'; installed: string; offered: string }
  | { kind: 'below-minimum'; installed: string; offered: string; upgradeFirstTo: string };

/**
 * May the installation at `installed` upgrade straight to `offered` (the version inside the
 * signed manifest, never the file name)? Same version: nothing to do. Older: refused (a
 * downgrade is a restore). Below `minUpgradeFrom`: refused, naming the release to install first.
 */
export function decideUpgrade(
  installed: string,
  offered: { version: string; minUpgradeFrom: string },
): UpgradeDecision {
  const from = parseReleaseVersion(installed, 'installed version');
  const to = parseReleaseVersion(offered.version, 'package version');
  const minimum = parseReleaseVersion(offered.minUpgradeFrom, 'minUpgradeFrom');
  const order = semver.compare(to, from);
  if (order === 0) return { kind: 'same', version: to };
  if (order < 0) return { kind: 'older', installed: from, offered: to };
  if (semver.lt(from, minimum)) return { kind: 'below-minimum', installed: from, offered: to, upgradeFirstTo: minimum };
  return { kind: 'upgrade', from, to };
}

/** One sentence for a decision that stops an upgrade, with the next step; null when it may go on. */
export function explainUpgradeDecision(decision: UpgradeDecision): { message: string; hint: string } | null {
  switch (decision.kind) {
    case 'upgrade':
      return null;
    case 'same':
      return {
        message: `already at ${decision.version}; nothing to upgrade`,
        hint: 'Run `install.sh status` to see the installation.',
      };
    case 'older':
      return {
        message:
          `the package holds ${decision.offered}, older than the installed ` +
          `${decision.installed}; upgrade never goes back`,
        hint:
          `To go back to ${decision.offered}, restore a backup taken on ` +
          `${decision.offered}: run \`install.sh restore <backup>\` from the directory of ` +
          `${packageFileName(decision.offered)}.`,
      };
    case 'below-minimum':
      return {
        message:
          `${decision.offered} cannot be installed over ${decision.installed} directly; it ` +
          `upgrades only from ${decision.upgradeFirstTo} or later`,
        hint:
          `Upgrade to ${decision.upgradeFirstTo} first ` +
          `(${packageFileName(decision.upgradeFirstTo)}), then to ${decision.offered}.`,
      };
  }
}

/** A manifest's own version rules: minUpgradeFrom may not be newer than the version itself. */
export function checkMinUpgradeFrom(version: string, minUpgradeFrom: string): void {
  if (semver.gt(parseReleaseVersion(minUpgradeFrom, 'minUpgradeFrom'), parseReleaseVersion(version))) {
    throw new ReleaseKitError(
      'invalid_manifest',
      `minUpgradeFrom ${minUpgradeFrom} is newer than the release ${version} itself`,
      {
        hint: 'minUpgradeFrom names the oldest installed version that may upgrade straight to this release.',
      },
    );
  }
}

/** The newest of several versions (for "the version the installation is at" from several sources). */
export function newestVersion(versions: readonly string[]): string {
  if (versions.length === 0) throw new RangeError('newestVersion needs at least one version');
  return [...versions].sort(compareVersions)[versions.length - 1]!;
}
