import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './cli-error.ts';
import { CommandInput, helpHint, type Command } from './command.ts';

/** Parses one command's arguments; returns 'help' when --help was asked for. */
export function parseCommandLine(command: Command, argv: string[]): CommandInput | 'help' {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' } };
  for (const o of command.options) {
    options[o.name] = o.value === undefined ? { type: 'boolean' } : { type: 'string', multiple: o.multiple ?? false };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new CliError(`${command.name}: ${describeParseError(err)}`, helpHint(command.name));
  }
  if (parsed.values.help === true) return 'help';
  if (parsed.positionals.length !== command.arguments.length) {
    const expected = command.arguments.map((a) => `<${a.name}>`).join(' ') || 'no arguments';
    const got = parsed.positionals.length === 0 ? 'none' : parsed.positionals.map((p) => `"${p}"`).join(' ');
    throw new CliError(`${command.name} takes ${expected}, got ${got}`, helpHint(command.name));
  }
  return new CommandInput(command, parsed.values, parsed.positionals);
}

// Why rewrite node's messages: they explain `--` escaping at length; the operator needs the option name.
function describeParseError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string }).code;
  const quoted = /'([^']+)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted) return `unknown option ${quoted}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted) return `option ${quoted.split(' ')[0]} needs a value`;
  return message;
}

export function renderCommandHelp(command: Command): string {
  const args = command.arguments.map((a) => ` <${a.name}>`).join('');
  const lines = [`Usage: npm run license -- ${command.name}${args} [options]`, '', command.summary, ''];
  const rows: [string, string][] = [
    ...command.arguments.map((a): [string, string] => [`<${a.name}>`, a.description]),
    ...command.options.map((o): [string, string] => [
      `--${o.name}${o.value ? ` ${o.value}` : ''}`,
      `${o.description}${o.required ? ' (required)' : ''}${o.multiple ? ' (repeatable)' : ''}`,
    ]),
    ['-h, --help', 'show this help'],
  ];
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  lines.push('Arguments and options:', ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`));
  if (command.examples.length > 0) lines.push('', 'Examples:', ...command.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

export function renderOverviewHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    'Usage: npm run license -- <command> [options]',
    '',
    'Issues and checks licence files for the service (vendor tool).',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Run `npm run license -- <command> --help` for a command\'s options.',
  ].join('\n');
}
