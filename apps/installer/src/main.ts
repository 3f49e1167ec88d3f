// install.sh: the installer of a self-hosted installation. One file per command in ./commands;
// the command kit prints errors and sets the exit code; side effects come in through the context.
import { OperatorError, runCli, type AnyCommand } from '@service/cli-kit';
import { ReleaseKitError } from '@service/release-kit';
import { backupCommand } from './commands/backup.ts';
import { cleanupCommand } from './commands/cleanup.ts';
import { importGlobalsCommand } from './commands/import-globals.ts';
import { installCommand } from './commands/install.ts';
import { recoverCommand } from './commands/recover.ts';
import { restoreCommand } from './commands/restore.ts';
import { statusCommand } from './commands/status.ts';
import { upgradeCommand } from './commands/upgrade.ts';
import { createInstallerContext, type InstallerContext } from './installer-context.ts';
import { readInstallerConfig } from './installer-config.ts';
import { createPrompt } from './ui/prompt.ts';
import { terminalOutput } from './ui/terminal-output.ts';

const COMMANDS: AnyCommand<InstallerContext>[] = [
  statusCommand,
  backupCommand,
  upgradeCommand,
  restoreCommand,
  importGlobalsCommand,
  installCommand,
  recoverCommand,
  cleanupCommand,
];

// Why first: a lost terminal (a dropped SSH session) makes writes fail; that must not end a run
// that is changing the installation (the log file has everything, the screen is simply gone).
const screen = terminalOutput(process.stdout);
process.stderr.on('error', () => {});

const DISK_ERRORS = ['ENOSPC', 'EDQUOT', 'EROFS', 'EIO'];

let prompt: ReturnType<typeof createPrompt> | null = null;
await runCli<InstallerContext>({
  name: 'install.sh',
  description: 'Installs, upgrades, backs up and restores a self-hosted installation of the service.',
  commands: COMMANDS,
  context: () => {
    prompt = createPrompt(process.stdin, process.stdout, () => {});
    return createInstallerContext({
      config: readInstallerConfig(process.env),
      output: screen,
      prompt,
      cwd: process.cwd(),
    });
  },
  dispose: () => prompt?.close(),
  translateError: (err) => {
    if (err instanceof ReleaseKitError) return new OperatorError(err.message, { hint: err.hint, cause: err });
    // Why: a full or read-only disk is the operator's to fix, not a bug; status then says what state it left.
    const code = (err as NodeJS.ErrnoException | null)?.code;
    if (code && DISK_ERRORS.includes(code))
      return new OperatorError((err as Error).message, {
        hint:
          'Free disk space or fix the file system, then run `./install.sh status`: it says whether a run ' +
          'was left unfinished and what to run.',
        cause: err,
      });
    return undefined;
  },
});
