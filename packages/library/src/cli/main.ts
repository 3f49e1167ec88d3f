// `npm run library:check` and `npm run library:coverage`: tools for the people who maintain library/.
// Commands live beside this file, one each; the command kit parses, prints errors and exits.
import { OperatorError, runCli, type AnyCommand } from '@service/cli-kit';
import { LibraryError } from '../library-error.ts';
import { checkCommand } from './check-command.ts';
import { coverageCommand } from './coverage-command.ts';
import { REPO_ROOT, type LibraryCommandContext } from './library-command.ts';

const COMMANDS: AnyCommand<LibraryCommandContext>[] = [checkCommand, coverageCommand];

await runCli<LibraryCommandContext>({
  name: 'npm run library --',
  description: 'Validate the global library and measure how much of real scans it matches.',
  commands: COMMANDS,
  context: () => ({
    repoRoot: REPO_ROOT,
    // Why INIT_CWD: `npm run` starts scripts in the repository root, but relative paths the
    // maintainer types mean the directory they ran npm from.
    cwd: process.env.INIT_CWD ?? process.cwd(),
    print: (line) => process.stdout.write(`${line}\n`),
  }),
  translateError: (err) =>
    err instanceof LibraryError ? new OperatorError(err.message, { hint: err.hint, cause: err }) : undefined,
});
