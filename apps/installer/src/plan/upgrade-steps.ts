import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { readSchemaHeads } from '../backup/create-backup.ts';
import { parseEnvFile, replaceFileAtomically, setEnvValue } from '../install-dir/env-file.ts';
import { DATABASES, type SchemaHeads } from '../install-dir/install-layout.ts';
import { undoSwap } from '../install-dir/release-files.ts';
import { reached, type JournalRecord } from '../journal/journal.ts';
import { waitForHealth } from '../runtime/wait-for-health.ts';
import type { OperationContext } from './operation-context.ts';

/** What the control plane records and each database's last migration; null when they cannot be read. */
export interface DatabaseState {
  version: string | null;
  heads: SchemaHeads;
}

export async function readDatabaseState(op: OperationContext): Promise<DatabaseState | null> {
  try {
    const version = (await op.runtime.sql(DATABASES[0].name, 'select version from installation where id = 1')).trim();
    const heads = await readSchemaHeads(op.runtime);
    return { version: version === '' ? null : version, heads };
  } catch (err) {
    op.reporter.log(`could not read the databases: ${(err as Error).message}`);
    return null;
  }
}

/**
 * Whether the databases are as the installed release left them: the control plane records the
 * old version and every database has the old release's last migration. Only then is going back
 * to the old version without a restore safe. Unknown old heads (or unreadable databases): no.
 */
export function databasesUntouched(state: DatabaseState | null, from: string, fromHeads: SchemaHeads | null): boolean {
  if (state === null || fromHeads === null) return false;
  return state.version === from && DATABASES.every((d) => state.heads[d.key] === fromHeads[d.key]);
}

/** SERVICE_VERSION in .env, or null. */
export async function installedVersionInEnv(home: string): Promise<string | null> {
  const text = await readFile(path.join(home, '.env'), 'utf8').catch(() => null);
  return text === null ? null : (parseEnvFile(text).values.get('SERVICE_VERSION') ?? null);
}

/** Sets SERVICE_VERSION (that line only) unless it already says `version`. */
export async function setInstalledVersion(home: string, version: string): Promise<void> {
  const file = path.join(home, '.env');
  const text = await readFile(file, 'utf8');
  if (parseEnvFile(text).values.get('SERVICE_VERSION') === version) return;
  await replaceFileAtomically(file, setEnvValue(text, 'SERVICE_VERSION', version));
}

/**
 * Puts the version before an upgrade back, from whatever point the upgrade reached: stops the
 * new app if it was started, sets SERVICE_VERSION back, undoes the file swap, starts the old
 * images and waits until the old version answers healthy. Every step is idempotent, so an
 * interrupted rollback is finished by running it again. Only for databases the new version did
 * not change (see databasesUntouched). Throws with the reason when the old version does not come back.
 */
export async function rollBackUpgrade(op: OperationContext, record: JournalRecord): Promise<void> {
  const { runtime, reporter } = op;
  const step = reporter.step(`Roll back to ${record.from}`);
  try {
    if (reached(record, 'start')) await runtime.stopApp();
    await setInstalledVersion(op.home, record.from);
    if (record.swap) await undoSwap(op.home, record.swap);
    await runtime.up();
    const health = await waitForHealth(runtime, {
      expectedVersion: record.from,
      timeoutMs: op.healthTimeoutMs,
      graceMs: Math.min(op.healthGraceMs, 5000),
      clock: op.clock,
    });
    if (!health.ok) throw new Error(health.reason);
  } catch (err) {
    step.fail((err as Error).message);
    throw err;
  }
  step.done(`${record.from} runs again`);
}

/** Prints the app's last lines of output (after a failed start). */
export async function showAppLogTail(op: OperationContext): Promise<void> {
  const tail = await op.runtime.appLogTail(20).catch(() => '');
  if (tail.trim() === '') return;
  op.reporter.info(
    `last lines of the app's output:\n${tail
      .trim()
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n')}`,
  );
}
