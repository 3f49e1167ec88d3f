import { CliError } from './cli-error.ts';

/** Side effects a command may use besides the file system: where relative paths start, the clock, output. */
export interface CommandContext {
  cwd: string;
  now: () => Date;
  out: (line: string) => void;
}

export interface CommandOption {
  name: string;
  /** Placeholder shown in help, e.g. "<dir>"; absent for a flag. */
  value?: string;
  multiple?: boolean;
  required?: boolean;
  description: string;
}

export interface CommandArgument {
  name: string;
  description: string;
}

/** One CLI command: its help lives beside its code, and `main.ts` only wires the list together. */
export interface Command {
  name: string;
  summary: string;
  arguments: CommandArgument[];
  options: CommandOption[];
  examples: string[];
  run(ctx: CommandContext, input: CommandInput): Promise<void>;
}

/** Parsed options and arguments of one invocation, with accessors that explain what is missing. */
export class CommandInput {
  constructor(
    private readonly command: Command,
    private readonly values: Record<string, string | boolean | (string | boolean)[] | undefined>,
    readonly args: string[],
  ) {}

  /** The value of a required option; a missing one is reported with the command's help hint. */
  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined) {
      const option = this.command.options.find((o) => o.name === name);
      throw new CliError(`${this.command.name} needs --${name} ${option?.value ?? ''}`.trimEnd(), helpHint(this.command.name));
    }
    return value;
  }

  optional(name: string): string | undefined {
    const value = this.values[name];
    if (Array.isArray(value)) return value.length === 0 ? undefined : String(value[value.length - 1]);
    return typeof value === 'string' ? value : undefined;
  }

  all(name: string): string[] {
    const value = this.values[name];
    if (value === undefined) return [];
    return (Array.isArray(value) ? value : [value]).map(String);
  }
}

export function helpHint(commandName?: string): string {
  return commandName === undefined
    ? 'Run `npm run license -- --help` for the list of commands.'
    : `Run \`npm run license -- ${commandName} --help\` for its options.`;
}
