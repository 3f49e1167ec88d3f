// `npm run release -- X.Y.Z [--sign-key FILE]`: the release engineer's tool. One file per command
// in ./commands; the command kit prints errors and sets the exit code.
import { OperatorError, runCli, type AnyCommand } from '@service/cli-kit';
import { ReleaseKitError } from '@service/release-kit';
import { buildAppCommand } from './commands/build-app-command.ts';
import { packageCommand } from './commands/package-command.ts';
import { REPO_ROOT, type ReleaseContext } from './release-context.ts';

const COMMANDS: AnyCommand<ReleaseContext>[] = [packageCommand, buildAppCommand];

await runCli<ReleaseContext>({
  name: 'npm run release --',
  description: 'Builds the signed offline package of a release.',
  commands: COMMANDS,
  context: () => ({
    repoRoot: REPO_ROOT,
    // Why INIT_CWD: `npm run` starts in the repository root; relative paths mean where npm was run.
    cwd: process.env.INIT_CWD ?? process.cwd(),
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
  }),
  translateError: (err) =>
    err instanceof ReleaseKitError ? new OperatorError(err.message, { hint: err.hint, cause: err }) : undefined,
});
