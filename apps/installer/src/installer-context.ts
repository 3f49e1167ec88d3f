import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OperatorError } from '@service/cli-kit';
import { COMPOSE_FILE, ENV_FILE, MANIFEST_FILE, packageFileName } from '@service/release-kit';
import type { CommandName } from './checks/preflight-check.ts';
import { acquireInstallLock } from './install-dir/install-lock.ts';
import { createFaultInjector, type FaultInjector } from './journal/fault-injection.ts';
import { JournalUnreadableError, PHASE_TITLES, readJournal, type JournalRecord } from './journal/journal.ts';
import type { InstallerConfig } from './installer-config.ts';
import type { OperationContext } from './plan/operation-context.ts';
import { createRuntime } from './runtime/create-runtime.ts';
import type { ServiceRuntime } from './runtime/service-runtime.ts';
import { systemClock, type Clock } from './runtime/wait-for-health.ts';
import { LogFile } from './ui/log-file.ts';
import type { Prompt } from './ui/prompt.ts';
import { createReporter, type Reporter, type ReporterOutput } from './ui/reporter.ts';

/** One command's hold on an installation: the lock, the log file, the screen, the runtime. */
export interface Session {
  home: string;
  reporter: Reporter;
  log: LogFile;
  runtime: ServiceRuntime;
  /** Test-only crashes and full disks (SERVICE_INSTALLER_TEST_FAULT); no-ops otherwise. */
  faults: FaultInjector;
  /** The unfinished run's journal (status and recover see it; every other command is refused). */
  journal: JournalRecord | null;
  /** What the journaled operations (upgrade, restore, import, recover) work with. */
  op: OperationContext;
  close(): Promise<void>;
}

/** Commands that run while an unfinished run's journal is there. */
const ALLOWED_WHILE_UNFINISHED: readonly CommandName[] = ['status', 'recover'];

/** What every installer command gets (side effects enter only through here). */
export interface InstallerContext {
  /** The extracted package the installer runs from, or null (run from sources, outside a package). */
  packageDir: string | null;
  /** Where relative paths the operator typed start. */
  cwd: string;
  config: InstallerConfig;
  clock: Clock;
  now(): Date;
  output: ReporterOutput;
  prompt: Prompt;
  /** Takes the installation's lock and opens its log; `createHome` for install. */
  openSession(command: CommandName, home: string, options?: { createHome?: boolean }): Promise<Session>;
}

export function createInstallerContext(options: {
  config: InstallerConfig;
  output: ReporterOutput;
  prompt: Prompt;
  cwd: string;
  clock?: Clock;
  runtimeFactory?: typeof createRuntime;
  /** Tests: whether a lock holder's pid lives (a test "kills" a run by saying it does not). */
  isProcessAlive?: (pid: number) => boolean;
  /** Tests: the fault injector, instead of the one SERVICE_INSTALLER_TEST_FAULT describes. */
  faults?: FaultInjector;
}): InstallerContext {
  const clock = options.clock ?? systemClock;
  const now = () => new Date(clock.now());
  let currentLog: LogFile | null = null;
  // Why wrap: every question and its answer belongs in the log of the run that asked it.
  const prompt: Prompt = {
    interactive: options.prompt.interactive,
    close: () => options.prompt.close(),
    async confirm(question, defaultAnswer) {
      const answer = await options.prompt.confirm(question, defaultAnswer);
      currentLog?.write(`asked: ${question} -> ${answer ? 'yes' : 'no'}`);
      return answer;
    },
  };
  return {
    packageDir: findPackageDir(options.cwd),
    cwd: options.cwd,
    config: options.config,
    clock,
    now,
    output: options.output,
    prompt,
    async openSession(command, home, sessionOptions = {}) {
      if (sessionOptions.createHome) mkdirSync(home, { recursive: true, mode: 0o755 });
      else requireInstallationDir(home);
      const log = new LogFile(command, now);
      currentLog = log;
      const reporter = createReporter(options.output, log);
      const lock = await acquireInstallLock(home, command, {
        now: now(),
        ...(options.isProcessAlive ? { isAlive: options.isProcessAlive } : {}),
      });
      const logFile = log.attach(home);
      if (logFile) reporter.info(`Log: ${logFile} (follow it with: tail -f ${logFile})`);
      else reporter.warn(`no log is written: ${log.problem}`);
      try {
        if (lock.tookOverFrom) {
          reporter.warn(
            `took over a stale lock of \`${lock.tookOverFrom.command}\` (pid ` +
              `${lock.tookOverFrom.pid}, since ${lock.tookOverFrom.startedAt}); that run had ` +
              `died`,
          );
        }
        reporter.log(
          `installer ${command} --home ${home} (package ` +
            `${findPackageDir(options.cwd) ?? 'none'}, runtime ${options.config.runtime})`,
        );
        const journal = await readJournal(home).catch((err: unknown) => {
          if (err instanceof JournalUnreadableError)
            throw new OperatorError(err.message, {
              hint:
                'Read the logs in logs/ to see which run it was and what it changed, put it right by ' +
                `hand, then delete ${err.file}.`,
            });
          throw err;
        });
        if (journal && !ALLOWED_WHILE_UNFINISHED.includes(command)) throw unfinishedRunError(journal, home, command);
        const faults = options.faults ?? createFaultInjector(options.config.testFault, (line) => reporter.log(line));
        const runtime = (options.runtimeFactory ?? createRuntime)(options.config, home, (line) => log.write(line));
        return {
          home,
          reporter,
          log,
          runtime,
          faults,
          journal,
          op: {
            home,
            runtime,
            reporter,
            clock,
            now,
            healthTimeoutMs: options.config.healthTimeoutMs,
            healthGraceMs: options.config.healthGraceMs,
            faults,
            logFile,
          },
          close: async () => {
            await lock.release();
          },
        };
      } catch (err) {
        await lock.release();
        throw err;
      }
    },
  };
}

/**
 * Every command but install runs on an existing installation directory: a wrong --home is an
 * operator's mistake (exit 1, saying what was expected), not a failure inside the installer.
 */
function requireInstallationDir(home: string): void {
  const info = statSync(home, { throwIfNoEntry: false });
  const expected = `the installation directory (the one holding ${COMPOSE_FILE} and ${ENV_FILE}, /opt/service unless installed elsewhere)`;
  if (!info)
    throw new OperatorError(`${home} does not exist; --home names ${expected}`, {
      hint: 'Pass --home <dir> with the directory you installed into, or run `install.sh install` first.',
    });
  if (!info.isDirectory())
    throw new OperatorError(`${home} is not a directory; --home names ${expected}`, {
      hint: 'Pass --home <dir> with the directory you installed into.',
    });
}

/** Why a command is refused while an earlier run is unfinished, and the command that finishes it. */
export function unfinishedRunError(journal: JournalRecord, home: string, command: string): OperatorError {
  return new OperatorError(
    `${command} refused: ${describeUnfinishedRun(journal)}; nothing else may change the installation until it is recovered`,
    {
      hint:
        `Run \`./install.sh status --home ${home}\` to see the state, then ` +
        `\`./install.sh recover --home ${home}\` (from this or any newer package folder) to finish or undo it.`,
    },
  );
}

/** "an upgrade 1.2.0 -> 1.3.0 started 2026-... did not finish (it stopped while it would swap the release files)". */
export function describeUnfinishedRun(journal: JournalRecord): string {
  const what =
    journal.operation === 'upgrade'
      ? `an upgrade ${journal.from} -> ${journal.to}`
      : journal.operation === 'restore'
        ? `a restore of a backup of ${journal.to} (from ${packageFileName(journal.to)})`
        : `an import of the global library of ${journal.to}`;
  const title = PHASE_TITLES[`${journal.operation}:${journal.phase}`] ?? journal.phase;
  const where =
    journal.stopped !== null
      ? `it stopped: ${journal.stopped.reason}`
      : journal.phase === 'begin'
        ? 'it stopped before its first step'
        : journal.state === 'started'
          ? `it stopped during the step "${title}"`
          : `it stopped after the step "${title}"`;
  return `${what} started ${journal.startedAt} did not finish (${where})`;
}

/**
 * The package folder: the one holding this installer (`<package>/installer/installer.mjs`), or
 * else the current folder when it is a package (running from sources during development).
 */
function findPackageDir(cwd: string): string | null {
  const own = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  if (existsSync(path.join(own, MANIFEST_FILE))) return own;
  if (existsSync(path.join(cwd, MANIFEST_FILE))) return cwd;
  return null;
}
