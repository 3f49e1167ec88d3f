import { OperatorError } from '@service/cli-kit';
import type { InstallerConfig } from '../installer-config.ts';
import type { ServiceRuntime } from '../runtime/service-runtime.ts';
import { waitForHealth, type Clock } from '../runtime/wait-for-health.ts';
import type { Prompt } from '../ui/prompt.ts';
import type { Reporter } from '../ui/reporter.ts';
import type { LibraryCounts } from './plan-upgrade.ts';

/**
 * SPEC "Global library update during upgrade": states the new and updated items and asks (default
 * no; --yes does not answer it). Yes: the service is asked to import at its next start and is
 * restarted; no: `import-globals` does it later.
 */
export async function askLibraryImport(options: {
  counts: LibraryCounts | null;
  home: string;
  version: string;
  runtime: ServiceRuntime;
  reporter: Reporter;
  prompt: Prompt;
  clock: Clock;
  config: InstallerConfig;
}): Promise<boolean> {
  const { counts, reporter } = options;
  if (!counts || counts.added + counts.updated === 0) return false;
  reporter.info(
    `The global library of ${options.version} has ${counts.added} new and ` +
      `${counts.updated} updated item(s). Importing overwrites users' edits to those ` +
      `global items; items users made are never touched.`,
  );
  const yes = await options.prompt.confirm('Import them now (the service restarts)?', false);
  if (!yes) {
    reporter.info(`Not imported. Import them later with: ./install.sh import-globals --home ${options.home}`);
    return false;
  }
  await importGlobalsNow({ ...options, version: options.version });
  return true;
}

/** Asks the service to import the library at its next start, restarts it, and waits until it is healthy again. */
export async function importGlobalsNow(options: {
  version: string;
  runtime: ServiceRuntime;
  reporter: Reporter;
  clock: Clock;
  config: InstallerConfig;
}): Promise<void> {
  const { runtime, reporter } = options;
  let step = reporter.step('Ask the service to import the library at its next start');
  await runtime.requestGlobalsImport();
  step.done();
  step = reporter.step('Restart the service to import');
  await runtime.stopApp();
  await runtime.up();
  const health = await waitForHealth(runtime, {
    expectedVersion: options.version,
    timeoutMs: options.config.healthTimeoutMs,
    graceMs: Math.min(options.config.healthGraceMs, 5000),
    clock: options.clock,
  });
  if (!health.ok) {
    step.fail(health.reason);
    throw new OperatorError(`the service did not come back after the library import: ${health.reason}`, {
      hint:
        'Read the app log (`docker compose logs app` in the installation directory); the ' +
        'import request stays until an import succeeds.',
    });
  }
  step.done('healthy');
}
