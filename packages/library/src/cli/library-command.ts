import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What each library command gets: where the repository is, and a way to print. */
export interface LibraryCommandContext {
  /** The repository root (where `library/` and the root package.json are). */
  repoRoot: string;
  cwd: string;
  print(line: string): void;
}

export interface LibraryCommand<O> {
  name: string;
  summary: string;
  options: Array<{ flags: string; description: string; defaultValue?: string }>;
  run(ctx: LibraryCommandContext, options: O): Promise<void>;
}

/** packages/library/src/cli -> the repository root. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
