/** A positional argument; it reaches `run` as a property named after it (camelCased). */
export interface CommandArgument {
  name: string;
  description: string;
  optional?: boolean;
  /** Takes every remaining argument (a string array); only the last argument may be variadic. */
  variadic?: boolean;
}

/** An option as commander writes it: `--out <dir>`, `--yes`, `-v, --verbose`. */
export interface CommandOption {
  flags: string;
  description: string;
  required?: boolean;
  /** May be given several times; the values arrive as a string array. */
  repeatable?: boolean;
  default?: string | boolean;
  choices?: readonly string[];
  /** Not shown in help: for test and development switches an operator should not reach for. */
  hidden?: boolean;
}

/**
 * One CLI command, in a file of its own: its help (summary, arguments, options, examples) lives
 * beside the code that runs it. `run` receives the CLI's context and one object holding the
 * parsed options and the named arguments; it throws OperatorError for anything the operator can
 * fix and never prints errors or exits itself.
 */
export interface CommandDefinition<Ctx, Input = Record<string, unknown>> {
  name: string;
  summary: string;
  /** Longer text shown by `<command> --help` under the summary. */
  description?: string;
  arguments?: readonly CommandArgument[];
  options?: readonly CommandOption[];
  examples?: readonly string[];
  /** Runs when the first word is not a command name (for tools with one main command). */
  isDefault?: boolean;
  run(ctx: Ctx, input: Input): Promise<void> | void;
}

/** Identity function that lets TypeScript check a command against its context and input types. */
export function defineCommand<Ctx, Input = Record<string, unknown>>(
  definition: CommandDefinition<Ctx, Input>,
): CommandDefinition<Ctx, Input> {
  return definition;
}

/** A command list of one CLI; each command narrows its own input type. */
// biome-ignore lint/suspicious/noExplicitAny: each command types its own input; a list of them can name no one input type (unknown would reject every command, by variance).
export type AnyCommand<Ctx> = CommandDefinition<Ctx, any>;
