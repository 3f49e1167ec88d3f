/** Side effects a licence command may use besides the file system: where relative paths start, the clock, output. */
export interface LicenseContext {
  cwd: string;
  now: () => Date;
  out: (line: string) => void;
}

export function helpHint(commandName?: string): string {
  return commandName === undefined
    ? 'Run `npm run license -- --help` for the list of commands.'
    : `Run \`npm run license -- ${commandName} --help\` for its options.`;
}
