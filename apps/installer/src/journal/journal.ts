import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { OperatorError } from '@service/cli-kit';
import { INSTALLER_STATE_DIR, type SchemaHeads } from '../install-dir/install-layout.ts';
import type { SwapRecord } from '../install-dir/release-files.ts';
import { NO_FAULTS, type FaultInjector } from './fault-injection.ts';

export const JOURNAL_FORMAT = 'service-installer-journal-v1';
export const JOURNAL_FILE = `${INSTALLER_STATE_DIR}/journal.json`;

export type JournalOperation = 'upgrade' | 'restore' | 'import-globals';

/** The phases of each operation, in order; the journal records each one's start and end. */
export const PHASES = {
  upgrade: ['images', 'backup', 'files', 'version', 'start', 'health', 'library'],
  restore: ['verify', 'images', 'stage', 'stop', 'dumps', 'swap-databases', 'swap-files', 'release', 'start'],
  'import-globals': ['request', 'restart'],
} as const satisfies Record<JournalOperation, readonly string[]>;

export type PhaseOf<O extends JournalOperation> = (typeof PHASES)[O][number];
export type AnyPhase = PhaseOf<JournalOperation>;

/** What each phase does, for status and messages. */
export const PHASE_TITLES: Record<string, string> = {
  'upgrade:backup': 'take the backup before the upgrade',
  'upgrade:images': 'load the new images',
  'upgrade:files': 'swap the release files',
  'upgrade:version': 'set SERVICE_VERSION in .env',
  'upgrade:start': 'start the new version',
  'upgrade:health': 'wait for the new version to answer healthy',
  'upgrade:library': 'import the global library',
  'restore:verify': 'verify and unpack the backup',
  'restore:images': 'load the images',
  'restore:stage': 'stage the release files',
  'restore:stop': 'stop the app',
  'restore:dumps': 'restore the dumps into new databases',
  'restore:swap-databases': 'swap the restored databases in',
  'restore:swap-files': 'swap the file storage and configuration in',
  'restore:release': 'put the release files in place',
  'restore:start': 'start and wait for health',
  'import-globals:request': 'ask the service to import the library',
  'import-globals:restart': 'restart the service to import',
};

/**
 * What an unfinished installer run leaves in `.installer/journal.json`: enough to tell, after a
 * crash, a `kill -9`, a power loss or a full disk, what state the installation is in and how to
 * finish or undo the run. Never holds a secret (no .env content, no password).
 */
export interface JournalRecord {
  format: typeof JOURNAL_FORMAT;
  operation: JournalOperation;
  pid: number;
  host: string;
  startedAt: string;
  updatedAt: string;
  /** The run's log file. */
  log: string | null;
  /** The package the run came from (absolute), or null. */
  packageDir: string | null;
  /** The installed version before the run, and the one it leads to. */
  from: string;
  to: string;
  /**
   * Upgrade: the restore point it took (or reused) before changing anything; restore: the backup
   * it restores. Null until known, or when an upgrade was told to skip it.
   */
  backup: { file: string; createdAt: string } | null;
  /** Upgrade: the schema heads of the installed release, to tell whether the new app changed the databases. */
  fromSchemaHeads: SchemaHeads | null;
  /** The release-file swap, recorded before its first move. */
  swap: SwapRecord | null;
  /** Restore: the suffix of the databases and folders it makes (`<name>_restore_<stamp>`, ...). */
  stamp: string | null;
  /**
   * Restore started by `recover` after an upgrade had changed the databases: the release files in
   * place are already the backup's, and going back is not possible, only forward.
   */
  forwardOnly: boolean;
  phase: string;
  state: 'started' | 'done';
  /** Set when the run gave up and left the installation for `recover` (e.g. the new version migrated, then failed). */
  stopped: { reason: string; at: string } | null;
  steps: Array<{ phase: string; state: 'started' | 'done'; at: string }>;
}

export type JournalStart = Pick<
  JournalRecord,
  'operation' | 'log' | 'packageDir' | 'from' | 'to' | 'backup' | 'fromSchemaHeads' | 'stamp'
> &
  Partial<Pick<JournalRecord, 'forwardOnly' | 'swap'>>;

/** How a finished run ended, kept in `.installer/last-<operation>.json` for status. */
export interface RunOutcome {
  operation: JournalOperation;
  from: string;
  to: string;
  startedAt: string;
  endedAt: string;
  result:
    | 'succeeded'
    | 'failed-nothing-changed'
    | 'rolled-back'
    | 'recovered-back'
    | 'recovered-forward'
    | 'resolved-by-hand';
  detail: string;
  log: string | null;
  backup: { file: string; createdAt: string } | null;
}

export interface JournalDeps {
  now: () => Date;
  faults?: FaultInjector;
  log?: (line: string) => void;
  pid?: number;
  host?: string;
}

/**
 * The journal of one operation. `enter` and `leave` record a phase's start and end durably (a
 * temporary file, fsync, rename, fsync of the folder) before the run goes on, so a crash anywhere
 * leaves a record at most one phase behind, and every step after a recorded point is idempotent.
 */
export class Journal {
  private constructor(
    private readonly home: string,
    private current: JournalRecord,
    private readonly deps: Required<Omit<JournalDeps, 'pid' | 'host'>>,
  ) {}

  get record(): Readonly<JournalRecord> {
    return this.current;
  }

  /** Starts a journal; refuses when one exists (an unfinished run must be recovered first). */
  static async begin(home: string, start: JournalStart, deps: JournalDeps): Promise<Journal> {
    const existing = await readJournal(home);
    if (existing !== null)
      throw new Error(`an unfinished installer run is recorded in ${path.join(home, JOURNAL_FILE)}`);
    const now = deps.now().toISOString();
    const record: JournalRecord = {
      format: JOURNAL_FORMAT,
      pid: deps.pid ?? process.pid,
      host: deps.host ?? hostname(),
      startedAt: now,
      updatedAt: now,
      swap: null,
      forwardOnly: false,
      ...start,
      phase: 'begin',
      state: 'done',
      stopped: null,
      steps: [],
    };
    const journal = new Journal(home, record, fill(deps));
    await journal.write();
    return journal;
  }

  /** Continues a journal an earlier run left (recover), as this process. */
  static resume(home: string, record: JournalRecord, deps: JournalDeps): Journal {
    return new Journal(home, { ...record, pid: deps.pid ?? process.pid, host: deps.host ?? hostname() }, fill(deps));
  }

  /**
   * Records that `phase` starts (with what it needs recorded first), then lets a test fault
   * strike. The recorded phase only moves forward (see mark).
   */
  async enter(phase: string, patch: Partial<JournalRecord> = {}): Promise<void> {
    await this.mark(phase, 'started', patch);
  }

  /** Records that `phase` is done. */
  async leave(phase: string, patch: Partial<JournalRecord> = {}): Promise<void> {
    await this.mark(phase, 'done', patch);
  }

  /** Changes fields without passing a phase boundary. */
  async update(patch: Partial<JournalRecord>): Promise<void> {
    this.current = { ...this.current, ...patch, updatedAt: this.deps.now().toISOString() };
    await this.write();
  }

  /** Like update, but a failure to write (a full disk during a rollback) is logged, not thrown. */
  async tryUpdate(patch: Partial<JournalRecord>): Promise<void> {
    await this.update(patch).catch((err: Error) => this.deps.log(`could not update the journal: ${err.message}`));
  }

  /**
   * Ends the run: the outcome goes to `.installer/last-<operation>.json` (best effort: a full disk
   * must not keep the journal), then the journal is removed.
   */
  async finish(result: RunOutcome['result'], detail: string): Promise<RunOutcome> {
    const outcome = await this.recordOutcome(result, detail);
    await rm(path.join(this.home, JOURNAL_FILE), { force: true });
    return outcome;
  }

  /**
   * Ends this operation (its outcome recorded as `finish` does) and continues, in the same
   * journal file, with another one: `recover` turning a failed upgrade into a restore. There is
   * no moment without a journal.
   */
  async replaceWith(result: RunOutcome['result'], detail: string, start: JournalStart): Promise<Journal> {
    await this.recordOutcome(result, detail);
    const now = this.deps.now().toISOString();
    const next = new Journal(
      this.home,
      {
        format: JOURNAL_FORMAT,
        pid: this.current.pid,
        host: this.current.host,
        startedAt: now,
        updatedAt: now,
        swap: null,
        forwardOnly: false,
        ...start,
        phase: 'begin',
        state: 'done',
        stopped: null,
        steps: [],
      },
      this.deps,
    );
    await next.write();
    return next;
  }

  private async recordOutcome(result: RunOutcome['result'], detail: string): Promise<RunOutcome> {
    const outcome: RunOutcome = {
      operation: this.current.operation,
      from: this.current.from,
      to: this.current.to,
      startedAt: this.current.startedAt,
      endedAt: this.deps.now().toISOString(),
      result,
      detail,
      log: this.current.log,
      backup: this.current.backup,
    };
    await writeDurably(
      path.join(this.home, INSTALLER_STATE_DIR, `last-${this.current.operation}.json`),
      `${JSON.stringify(outcome, null, 2)}\n`,
      this.deps.faults,
    ).catch((err: Error) => this.deps.log(`could not record the outcome: ${err.message}`));
    return outcome;
  }

  private async mark(phase: string, state: 'started' | 'done', patch: Partial<JournalRecord>): Promise<void> {
    const at = this.deps.now().toISOString();
    // Why never backwards: a resumed run (recover) passes phases again; the journal must keep
    // saying how far the operation got, or a later recover would undo what is already done.
    const behind = phaseIndex(this.current.operation, phase) < phaseIndex(this.current.operation, this.current.phase);
    this.current = {
      ...this.current,
      ...patch,
      ...(behind ? {} : { phase, state }),
      updatedAt: at,
      steps: [...this.current.steps, { phase, state, at }],
    };
    await this.write();
    this.deps.log(`journal: ${this.current.operation} ${phase} ${state}`);
    await this.deps.faults.reached(`${this.current.operation}:${phase}:${state}`);
  }

  private async write(): Promise<void> {
    await writeDurably(
      path.join(this.home, JOURNAL_FILE),
      `${JSON.stringify(this.current, null, 2)}\n`,
      this.deps.faults,
    );
  }
}

/**
 * Journal.begin for a command: a journal that cannot be written (a full disk) stops the
 * operation before it changes anything, with a message that says so.
 */
export async function beginJournal(home: string, start: JournalStart, deps: JournalDeps): Promise<Journal> {
  try {
    return await Journal.begin(home, start, deps);
  } catch (err) {
    throw new OperatorError(
      `the ${start.operation} cannot record its journal in ${path.join(home, INSTALLER_STATE_DIR)}: ` +
        `${(err as Error).message}; nothing was changed`,
      { hint: `Free disk space in ${home} (\`df -h ${home}\`), then run the command again.`, cause: err },
    );
  }
}

function fill(deps: JournalDeps): Required<Omit<JournalDeps, 'pid' | 'host'>> {
  return { now: deps.now, faults: deps.faults ?? NO_FAULTS, log: deps.log ?? (() => {}) };
}

/** The unfinished run's journal, or null. A journal that cannot be read is reported as such, never ignored. */
export async function readJournal(home: string): Promise<JournalRecord | null> {
  const file = path.join(home, JOURNAL_FILE);
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (text === null) return null;
  let record: JournalRecord;
  try {
    record = JSON.parse(text) as JournalRecord;
  } catch {
    throw new JournalUnreadableError(file, 'it is not JSON');
  }
  if (record.format !== JOURNAL_FORMAT || !(record.operation in PHASES))
    throw new JournalUnreadableError(file, `its format is ${JSON.stringify(record.format)}`);
  return record;
}

export class JournalUnreadableError extends Error {
  constructor(
    readonly file: string,
    why: string,
  ) {
    super(`${file} records an unfinished installer run but cannot be read: ${why}`);
  }
}

/** How the last run of an operation ended, or null. */
export async function readLastOutcome(home: string, operation: JournalOperation): Promise<RunOutcome | null> {
  const text = await readFile(path.join(home, INSTALLER_STATE_DIR, `last-${operation}.json`), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    return JSON.parse(text) as RunOutcome;
  } catch {
    return null;
  }
}

/** Index of a phase in its operation's order (-1 for `begin`), to compare how far a run got. */
export function phaseIndex(operation: JournalOperation, phase: string): number {
  return (PHASES[operation] as readonly string[]).indexOf(phase);
}

/** Whether `phase` ran to its end (it was left, or a later phase was entered). */
export function completed(record: Pick<JournalRecord, 'operation' | 'phase' | 'state'>, phase: string): boolean {
  const at = phaseIndex(record.operation, record.phase);
  const wanted = phaseIndex(record.operation, phase);
  return at > wanted || (at === wanted && record.state === 'done');
}

/** Whether the run got to `phase` (entered it, or further). */
export function reached(record: Pick<JournalRecord, 'operation' | 'phase'>, phase: string): boolean {
  return phaseIndex(record.operation, record.phase) >= phaseIndex(record.operation, phase);
}

/**
 * Writes a file so that after a crash it holds the old or the new content, never part: a
 * temporary file in the same folder, fsync, rename, fsync of the folder.
 */
export async function writeDurably(file: string, content: string, faults: FaultInjector = NO_FAULTS): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  faults.beforeWrite(path.basename(file));
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  await rename(temp, file);
  const dir = await open(path.dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
