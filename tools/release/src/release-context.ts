import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a release command gets: where the repository is, where the operator ran npm, the environment, output. */
export interface ReleaseContext {
  repoRoot: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  out(line: string): void;
}

/** tools/release/src -> the repository root. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
