export { OperatorError, BUG_EXIT_CODE, type OperatorErrorOptions } from './operator-error.ts';
export {
  defineCommand,
  type AnyCommand,
  type CommandArgument,
  type CommandDefinition,
  type CommandOption,
} from './command-definition.ts';
export {
  executeCli,
  runCli,
  USAGE_EXIT_CODE,
  type CliOutput,
  type GlobalOptions,
  type RunCliOptions,
} from './run-cli.ts';
