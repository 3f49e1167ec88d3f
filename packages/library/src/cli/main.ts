// `npm run library:check` and `npm run library:coverage`: tools for the people who maintain library/.
import { Command } from 'commander';
import { LibraryError } from '../library-error.ts';
import { checkCommand } from './check-command.ts';
import { coverageCommand } from './coverage-command.ts';
import { REPO_ROOT, type LibraryCommand } from './library-command.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command types its own options
const COMMANDS: Array<LibraryCommand<any>> = [checkCommand, coverageCommand];

const program = new Command('library')
  .description('Validate the global library and measure how much of real scans it matches.')
  .showHelpAfterError();
for (const command of COMMANDS) {
  const sub = program.command(command.name).description(command.summary);
  for (const o of command.options) sub.option(o.flags, o.description, o.defaultValue);
  sub.action(async (options: unknown) => {
    try {
      await command.run(
        { repoRoot: REPO_ROOT, cwd: process.cwd(), print: (line) => process.stdout.write(`${line}\n`) },
        options,
      );
    } catch (err) {
      if (err instanceof LibraryError) {
        process.stderr.write(`library ${command.name}: ${err.message}\n${err.hint ? `  ${err.hint}\n` : ''}`);
        process.exit(1);
      }
      throw err;
    }
  });
}

await program.parseAsync(process.argv);
