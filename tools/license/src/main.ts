// The vendor's licence tool: `npm run license -- <command>`. Commands live in ./commands and
// throw; only this file prints errors and sets the exit code.
import { CliError } from './cli-error.ts';
import { helpHint, type Command, type CommandContext } from './command.ts';
import { keygenCommand } from './commands/keygen.ts';
import { signCommand } from './commands/sign.ts';
import { verifyCommand } from './commands/verify.ts';
import { LicenseError } from './license-api.ts';
import { parseCommandLine, renderCommandHelp, renderOverviewHelp } from './parse-command-line.ts';

const COMMANDS: readonly Command[] = [keygenCommand, signCommand, verifyCommand];

async function main(argv: string[], ctx: CommandContext): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    ctx.out(renderOverviewHelp(COMMANDS));
    if (name === undefined) throw new CliError('no command given', helpHint());
    return;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    throw new CliError(`unknown command "${name}"; commands are ${COMMANDS.map((c) => c.name).join(', ')}`, helpHint());
  }
  const input = parseCommandLine(command, rest);
  if (input === 'help') {
    ctx.out(renderCommandHelp(command));
    return;
  }
  await command.run(ctx, input);
}

function report(err: unknown): number {
  if (err instanceof CliError || err instanceof LicenseError) {
    const hint = err.hint ? ` ${err.hint}` : '';
    process.stderr.write(`error: ${err.message}.${hint}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
  process.stderr.write(`error: unexpected failure, this is a bug in the licence tool: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}

const ctx: CommandContext = {
  // Why INIT_CWD: `npm run` starts scripts in the repository root, but relative paths the
  // operator types mean the directory they ran npm from.
  cwd: process.env.INIT_CWD ?? process.cwd(),
  now: () => new Date(),
  out: (line) => process.stdout.write(`${line}\n`),
};

main(process.argv.slice(2), ctx).then(
  () => {
    process.exitCode = 0;
  },
  (err: unknown) => {
    process.exitCode = report(err);
  },
);
