import { packageFileName } from '@service/release-kit';
import { DATABASES } from '../install-dir/install-layout.ts';
import { completed, reached, type JournalRecord } from '../journal/journal.ts';
import type { AppState } from '../runtime/service-runtime.ts';
import { describeBackup } from './describe-backup.ts';
import { databasesUntouched, type DatabaseState } from './upgrade-steps.ts';

/** What `recover` (and `status`) see of an installation with an unfinished run. */
export interface RecoveryFacts {
  journal: JournalRecord;
  now: Date;
  /** The app as the engine sees it, and the version that answers healthy (null: none). */
  app: { state: AppState['state']; healthyVersion: string | null };
  /** The databases' recorded version and schema heads; null when they could not be read. */
  databases: DatabaseState | null;
  /** The names of the databases on the server; null when unknown. */
  databaseNames: ReadonlySet<string> | null;
  /** Whether the backup the journal names is still there. */
  backupPresent: boolean;
  /** `recover --backup`: another backup of the same version to restore instead. */
  backupOverride: { file: string; createdAt: string } | null;
  /** Status only: the database is not running, so it could not be read (recover starts it first). */
  databaseStopped?: boolean;
}

export type RecoveryAction =
  | 'clean-up'
  | 'roll-back-upgrade'
  | 'wait-for-new-version'
  | 'roll-forward-upgrade'
  | 'restore-before-upgrade'
  | 'roll-back-restore'
  | 'roll-forward-restore'
  | 'finish-import'
  | 'read-databases-first'
  | 'stuck';

export interface RecoveryPlan {
  action: RecoveryAction;
  /** One sentence: the state, and what recover will do about it. */
  summary: string;
  steps: string[];
  /** The version the installation runs afterwards. */
  target: string | null;
  /** For `stuck`: what the operator must do. */
  hint?: string;
}

/**
 * Pure: from an unfinished run's journal and what can be seen now, how to reach one consistent
 * version with its data. Going back is chosen wherever it is safe (nothing changed, or the new
 * version did not touch the databases); going forward where the new state is already complete
 * (the new version answers healthy, or a restore has swapped its databases in); a restore of the
 * backup taken before the upgrade when the new version changed the databases and does not work.
 */
export function planRecovery(facts: RecoveryFacts): RecoveryPlan {
  const j = facts.journal;
  if (j.operation === 'import-globals')
    return {
      action: 'finish-import',
      summary: `the service was being restarted to import the global library of ${j.to}; recover starts it again (the import request stays until an import succeeds)`,
      steps: [`Start the service and wait until ${j.to} answers healthy`],
      target: j.to,
    };
  if (j.operation === 'restore') return planRestoreRecovery(facts);

  const { from, to } = j;
  const startOld = `Start ${from} and wait until it answers healthy`;
  if (!reached(j, 'files'))
    return {
      action: 'clean-up',
      summary: `the upgrade to ${to} stopped before it changed anything; recover removes what it left and makes sure ${from} runs`,
      steps: ['Remove the unfinished backup and staged files, if any', startOld],
      target: from,
    };
  const rollBack: RecoveryPlan = {
    action: 'roll-back-upgrade',
    summary: '',
    steps: [
      ...(reached(j, 'start') ? [`Stop ${to}`] : []),
      `Set SERVICE_VERSION=${from} in .env`,
      `Put the release files of ${from} back from ${j.swap?.previousDir ?? `.previous-${from}`}/`,
      startOld,
    ],
    target: from,
  };
  if (!reached(j, 'start'))
    return {
      ...rollBack,
      summary: `the upgrade to ${to} stopped while it swapped the release files (${to} never started, the databases are untouched); recover puts ${from} back`,
    };
  if (completed(j, 'health') || (j.stopped === null && facts.app.healthyVersion === to))
    return {
      action: 'roll-forward-upgrade',
      summary: completed(j, 'health')
        ? `${to} had answered healthy; the upgrade stopped at the library question or import; recover starts ${to} if needed and finishes the upgrade`
        : `${to} is running and answers healthy; recover finishes the upgrade`,
      steps: [
        `Start ${to} if it is not running, and watch it answer healthy for the grace period`,
        'Record the upgrade as done',
      ],
      target: to,
    };
  if (j.stopped === null && facts.app.healthyVersion === from)
    return {
      ...rollBack,
      summary: `${to} was never started (${from} still answers); recover puts ${from} back`,
    };
  if (j.stopped === null && facts.app.state === 'running')
    return {
      action: 'wait-for-new-version',
      summary: `${to} was started and is not healthy yet (it may still be migrating the databases); recover waits for it and goes forward if it comes up, otherwise back`,
      steps: [`Wait until ${to} answers healthy (bounded)`, `If it does not: stop it and go back as below`],
      target: to,
    };
  if (facts.databases === null && facts.databaseStopped)
    return {
      action: 'read-databases-first',
      summary:
        `${to} was started and does not answer; recover starts the database and reads whether ${to} changed it: ` +
        `if not, it puts ${from} back; if so, it restores the backup taken before the upgrade`,
      steps: [],
      target: from,
    };
  if (facts.databases === null)
    return {
      action: 'stuck',
      summary: `the upgrade to ${to} started ${to}, which does not answer, and the databases cannot be read to tell whether ${to} changed them`,
      steps: [],
      target: null,
      hint: 'Make sure the database container runs (`docker compose up -d db` in the installation directory), then run recover again.',
    };
  if (databasesUntouched(facts.databases, from, j.fromSchemaHeads))
    return {
      ...rollBack,
      summary: `${to} did not come up and did not change the databases (they still record ${from} and its schema); recover puts ${from} back`,
    };
  const backup = facts.backupOverride ?? (facts.backupPresent ? j.backup : null);
  if (backup === null)
    return {
      action: 'stuck',
      summary:
        `${to} changed the databases (they record ${facts.databases.version ?? 'an unknown version'}) and does not work; ` +
        `going back needs a backup of ${from}, and ${j.backup ? `${j.backup.file} is gone` : 'none was taken before the upgrade (--skip-backup)'}`,
      steps: [],
      target: null,
      hint:
        `Run \`./install.sh recover --backup <file>\` with the newest backup of ${from} (what was written after it is lost), ` +
        `or ask the vendor for help with ${to}.`,
    };
  return {
    action: 'restore-before-upgrade',
    summary:
      `${to} changed the databases and does not work; recover stops it, puts the release files of ${from} back ` +
      `and restores the backup taken before the upgrade, ${describeBackup(backup, facts.now)}`,
    steps: [
      `Stop ${to}`,
      `Put SERVICE_VERSION=${from} and the release files of ${from} back`,
      `Restore ${backup.file} into new databases and swap them in (the current ones are kept as *_before_<time>)`,
      startOld,
    ],
    target: from,
  };
}

function planRestoreRecovery(facts: RecoveryFacts): RecoveryPlan {
  const j = facts.journal;
  const stamp = j.stamp ?? '';
  const names = facts.databaseNames;
  const swapped =
    reached(j, 'swap-databases') &&
    names !== null &&
    DATABASES.every((d) => names.has(d.name) && !names.has(`${d.name}_restore_${stamp}`));
  const forward: RecoveryPlan = {
    action: 'roll-forward-restore',
    summary: '',
    steps: [
      ...(completed(j, 'swap-databases') || swapped
        ? []
        : ['Drop the half-made restore databases', 'Restore the dumps again and swap them in']),
      'Move the rest of the backup (file storage, configuration) and the release files in',
      `Start ${j.to} and wait until it answers healthy`,
    ],
    target: j.to,
  };
  if (swapped || completed(j, 'swap-databases'))
    return {
      ...forward,
      summary: `the restore of ${j.backup?.file ?? 'a backup'} had swapped the restored databases in; recover finishes it`,
    };
  if (reached(j, 'swap-databases') && names === null)
    return {
      action: 'stuck',
      summary:
        'the restore stopped while it swapped the databases, and the database server cannot be asked which names it has now',
      steps: [],
      target: null,
      hint: 'Make sure the database container runs (`docker compose up -d db` in the installation directory), then run recover again.',
    };
  if (j.forwardOnly)
    return {
      ...forward,
      summary: `the restore of ${j.backup?.file ?? 'the backup'} (after a failed upgrade) stopped before it swapped the databases; recover runs it again from the dumps`,
    };
  return {
    action: 'roll-back-restore',
    summary: `the restore stopped before it swapped the restored databases in (the current data is untouched); recover removes what it made and starts ${j.from} again`,
    steps: [
      "Drop the half-made restore databases (named *_restore_<time>; never the installation's)",
      'Remove the unpacked backup and the staged release files',
      `Start ${j.from} and wait until it answers healthy`,
    ],
    target: j.from,
    hint: `To restore the backup after all, run the restore again from the directory of ${packageFileName(j.to)}.`,
  };
}
