import path from 'node:path';
import type { CommandOption } from '@service/cli-kit';
import { DEFAULT_HOME } from '../install-dir/install-layout.ts';

export const HOME_OPTION: CommandOption = {
  flags: '--home <dir>',
  description: `installation directory (default ${DEFAULT_HOME})`,
  default: DEFAULT_HOME,
};
export const YES_OPTION: CommandOption = {
  flags: '--yes',
  description: 'do not ask for confirmation (the library question is still asked)',
};
export const DRY_RUN_OPTION: CommandOption = {
  flags: '--dry-run',
  description: 'check and print the plan; change nothing',
};

export function resolveHome(raw: string | undefined, cwd: string): string {
  return path.resolve(cwd, raw ?? DEFAULT_HOME);
}
