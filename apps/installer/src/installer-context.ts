import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MANIFEST_FILE } from '@service/release-kit';
import type { CommandName } from './checks/preflight-check.ts';
import { acquireInstallLock } from './install-dir/install-lock.ts';
import type { InstallerConfig } from './installer-config.ts';
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
  close(): Promise<void>;
}

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
      const log = new LogFile(command, now);
      currentLog = log;
      const reporter = createReporter(options.output, log);
      const lock = await acquireInstallLock(home, command, { now: now() });
      log.attach(home);
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
      const runtime = (options.runtimeFactory ?? createRuntime)(options.config, home, (line) => log.write(line));
      return {
        home,
        reporter,
        log,
        runtime,
        close: async () => {
          await lock.release();
        },
      };
    },
  };
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
