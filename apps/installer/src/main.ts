// install.sh: the installer of a self-hosted installation. One file per command in ./commands;
// the command kit prints errors and sets the exit code; side effects come in through the context.
import { OperatorError, runCli, type AnyCommand } from '@service/cli-kit';
import { ReleaseKitError } from '@service/release-kit';
import { backupCommand } from './commands/backup.ts';
import { importGlobalsCommand } from './commands/import-globals.ts';
import { installCommand } from './commands/install.ts';
import { restoreCommand } from './commands/restore.ts';
import { statusCommand } from './commands/status.ts';
import { upgradeCommand } from './commands/upgrade.ts';
import { createInstallerContext, type InstallerContext } from './installer-context.ts';
import { readInstallerConfig } from './installer-config.ts';
import { createPrompt } from './ui/prompt.ts';

const COMMANDS: AnyCommand<InstallerContext>[] = [
  statusCommand,
  backupCommand,
  upgradeCommand,
  restoreCommand,
  importGlobalsCommand,
  installCommand,
];

let prompt: ReturnType<typeof createPrompt> | null = null;
await runCli<InstallerContext>({
  name: 'install.sh',
  description: 'Installs, upgrades, backs up and restores a self-hosted installation of the service.',
  commands: COMMANDS,
  context: () => {
    prompt = createPrompt(process.stdin, process.stdout, () => {});
    return createInstallerContext({
      config: readInstallerConfig(process.env),
      output: { write: (t) => process.stdout.write(t), isTTY: process.stdout.isTTY === true },
      prompt,
      cwd: process.cwd(),
    });
  },
  dispose: () => prompt?.close(),
  translateError: (err) =>
    err instanceof ReleaseKitError ? new OperatorError(err.message, { hint: err.hint, cause: err }) : undefined,
});
