import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Why from this file and not each module's own: the release bundles every module into
// apps/api/src/main.js, three folders below the root as this file is; deeper modules would miss.
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface BuildInfo {
  version: string;
  sha: string;
}

/**
 * The version is the root package.json's. The commit sha is baked in at build time
 * (`build-info.json`, written by `npm run build -w @service/api` and the release build); a source
 * checkout without one falls back to `git rev-parse`, then `unknown`.
 */
export function readBuildInfo(shaOverride: string | null = null): BuildInfo {
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  const baked = path.join(REPO_ROOT, 'apps/api/build-info.json');
  let sha = shaOverride;
  if (!sha && existsSync(baked)) sha = (JSON.parse(readFileSync(baked, 'utf8')) as { sha?: string }).sha ?? null;
  if (!sha) {
    try {
      sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    } catch {
      sha = 'unknown';
    }
  }
  return { version: pkg.version, sha };
}
