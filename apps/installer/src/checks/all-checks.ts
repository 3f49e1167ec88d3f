import { backupVersionCheck } from './backup-version.ts';
import { containerEngineCheck } from './container-engine.ts';
import { diskSpaceCheck } from './disk-space.ts';
import { envFileCheck } from './env-file.ts';
import { installationPresentCheck } from './installation-present.ts';
import { installedReleaseCheck } from './installed-release-signature.ts';
import { packageFilesCheck } from './package-files.ts';
import { packageSignatureCheck } from './package-signature.ts';
import type { CheckResult, CommandName, Facts, PreflightCheck } from './preflight-check.ts';
import { recentBackupCheck } from './recent-backup.ts';
import { runningVersionCheck } from './running-version.ts';
import { versionOrderCheck } from './version-order.ts';

/** Every pre-flight check, in the order they are shown: signature first. */
export const ALL_CHECKS: readonly PreflightCheck[] = [
  packageSignatureCheck,
  packageFilesCheck,
  installationPresentCheck,
  envFileCheck,
  installedReleaseCheck,
  containerEngineCheck,
  versionOrderCheck,
  runningVersionCheck,
  backupVersionCheck,
  recentBackupCheck,
  diskSpaceCheck,
];

/** Runs the checks that apply to the facts' command; pure. */
export function runChecks(facts: Facts, checks: readonly PreflightCheck[] = ALL_CHECKS): CheckResult[] {
  return checks
    .filter((c) => c.appliesTo.includes(facts.command))
    .map((c) => ({ id: c.id, title: c.title, ...c.run(facts) }));
}

export function failures(results: readonly CheckResult[]): CheckResult[] {
  return results.filter((r) => r.status === 'fail');
}

export type { CheckResult, CommandName, Facts };
