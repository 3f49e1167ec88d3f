// The vendor's licence tool: `npm run license -- <command>`. Commands live in ./commands, one
// file each, and throw; the command kit prints errors and sets the exit code.
import { runCli, OperatorError, type AnyCommand } from '@service/cli-kit';
import { keygenCommand } from './commands/keygen.ts';
import { signCommand } from './commands/sign.ts';
import { verifyCommand } from './commands/verify.ts';
import { LicenseError } from './license-api.ts';
import type { LicenseContext } from './license-context.ts';

const COMMANDS: AnyCommand<LicenseContext>[] = [keygenCommand, signCommand, verifyCommand];

await runCli<LicenseContext>({
  name: 'npm run license --',
  description: 'Issues and checks licence files for the service (vendor tool).',
  commands: COMMANDS,
  context: () => ({
    // Why INIT_CWD: `npm run` starts scripts in the repository root, but relative paths the
    // operator types mean the directory they ran npm from.
    cwd: process.env.INIT_CWD ?? process.cwd(),
    now: () => new Date(),
    out: (line) => process.stdout.write(`${line}\n`),
  }),
  translateError: (err) =>
    err instanceof LicenseError ? new OperatorError(err.message, { hint: err.hint, cause: err }) : undefined,
});
