import { OperatorError } from '@service/cli-kit';
import { DATABASES } from '../install-dir/install-layout.ts';
import type { Journal } from '../journal/journal.ts';
import { waitForHealth } from '../runtime/wait-for-health.ts';
import type { Prompt } from '../ui/prompt.ts';
import type { Reporter } from '../ui/reporter.ts';
import type { OperationContext } from './operation-context.ts';
import type { LibraryCounts } from './plan-upgrade.ts';

/**
 * SPEC "Global library update during upgrade": states the new and updated items and asks
 * (default no; --yes does not answer it). Returns the answer; importing is the caller's next step.
 */
export async function askLibraryImport(options: {
  counts: LibraryCounts | null;
  home: string;
  version: string;
  reporter: Reporter;
  prompt: Prompt;
}): Promise<boolean> {
  const { counts, reporter } = options;
  if (!counts || counts.added + counts.updated === 0) return false;
  reporter.info(
    `The global library of ${options.version} has ${counts.added} new and ` +
      `${counts.updated} updated item(s). Importing overwrites users' edits to those ` +
      `global items; items users made are never touched.`,
  );
  const yes = await options.prompt.confirm('Import them now (the service restarts)?', false);
  if (!yes) reporter.info(`Not imported. Import them later with: ./install.sh import-globals --home ${options.home}`);
  return yes;
}

/** What an import changed in the workspace, as the service recorded it. */
export interface AppliedImport {
  libraryVersion: string;
  importedAt: string;
  counts: { added: number; updated: number; unchanged: number; removed: number; overwrittenEdits: number };
}

/**
 * Asks the service to import the library at its next start, restarts it, waits until it is
 * healthy again and reads what the import changed (recorded by the service in the workspace
 * database). Journaled as the phases `request` and `restart` (of the journal's operation).
 */
export async function importGlobalsNow(
  op: OperationContext,
  journal: Journal,
  version: string,
  phases: { request: string; restart: string },
): Promise<AppliedImport | null> {
  const { runtime, reporter } = op;
  const before = await readLastImport(op);
  let step = reporter.step('Ask the service to import the library at its next start');
  await journal.enter(phases.request);
  await runtime.requestGlobalsImport();
  if (phases.request !== phases.restart) await journal.leave(phases.request);
  step.done();
  step = reporter.step('Restart the service to import');
  if (phases.request !== phases.restart) await journal.enter(phases.restart);
  await runtime.stopApp();
  await runtime.up();
  const health = await waitForHealth(runtime, {
    expectedVersion: version,
    timeoutMs: op.healthTimeoutMs,
    graceMs: Math.min(op.healthGraceMs, 5000),
    clock: op.clock,
  });
  if (!health.ok) {
    step.fail(health.reason);
    await journal.tryUpdate({
      stopped: {
        reason: `the service did not come back after the import: ${health.reason}`,
        at: op.now().toISOString(),
      },
    });
    throw new OperatorError(`the service did not come back after the library import: ${health.reason}`, {
      hint:
        `Read the app log (\`docker compose logs app\` in ${op.home}), fix the cause, then run ` +
        `\`./install.sh recover --home ${op.home}\`; the import request stays until an import succeeds.`,
    });
  }
  await journal.leave(phases.restart);
  const after = await readLastImport(op);
  const applied = after !== null && after.importedAt !== before?.importedAt ? after : null;
  step.done(applied ? describeImport(applied) : 'healthy');
  if (!applied) reporter.warn('the service recorded no new import; see its log (`docker compose logs app`)');
  return applied;
}

/** "1 new, 2 updated (1 with users' edits overwritten), 0 marked removed, 40 unchanged". */
export function describeImport(applied: AppliedImport): string {
  const c = applied.counts;
  return (
    `${c.added} new, ${c.updated} updated` +
    `${c.overwrittenEdits > 0 ? ` (${c.overwrittenEdits} with users' edits overwritten)` : ''}, ` +
    `${c.removed} marked removed, ${c.unchanged} unchanged`
  );
}

/** The last import the workspace recorded, or null (none, or an older service without the record). */
async function readLastImport(op: OperationContext): Promise<AppliedImport | null> {
  const out = await op.runtime
    .sql(
      DATABASES[2].name,
      `select json_build_object('libraryVersion', library_version, 'importedAt', imported_at, 'counts', counts) ` +
        `from library_import where id = 1`,
    )
    .catch((err: Error) => {
      op.reporter.log(`could not read the last library import: ${err.message}`);
      return '';
    });
  const line = out.trim();
  if (line === '') return null;
  try {
    return JSON.parse(line) as AppliedImport;
  } catch {
    return null;
  }
}
