import type { CommandDefinition } from '@service/cli-kit';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What each library command gets: where the repository is, and a way to print. */
export interface LibraryCommandContext {
  /** The repository root (where `library/` and the root package.json are). */
  repoRoot: string;
  cwd: string;
  print(line: string): void;
}

/** A library command: a command of the CLI kit, run with the library's context. */
export type LibraryCommand<O> = CommandDefinition<LibraryCommandContext, O>;

/** packages/library/src/cli -> the repository root. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
