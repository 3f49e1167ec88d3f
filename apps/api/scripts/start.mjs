// `npm start`: runs the service as built JavaScript, the way the release image runs it, instead of
// TypeScript through a loader (which cost 60-100 MB of memory and most of a second at each start).
//
// The bundle lives in dist/service/<digest>/ (ignored by git), laid out like the release's app root:
//   package.json                 the root package.json's name and version
//   apps/api/src/main.js         the service: workspace code bundled, node_modules imported
//   apps/api/src/markdown-worker.js  the Markdown reader's worker thread, bundled the same way
//   apps/api/src/assets/         the workspace pages' stylesheet and script (copied)
//   web/dist/                    the built workspace app (apps/web, built here when stale; copied)
//   migrations/<database>/*.js   the knex migrations, one file each
//   library -> ../../../library  the global library
// <digest> is a hash of the path, size and modification time of every source the bundle is built
// from (apps/api/src, the packages' sources and manifests, migrations, package.json,
// package-lock.json), so a changed source means a new folder: the bundle is built when missing
// or stale, in about a second, and a fresh one starts without loading esbuild at all. Why a
// folder per digest, built aside and renamed into place: two starts at once (a second service on
// the same data directory, which then exits) never see a half-built or removed bundle.
//
// The esbuild options are those of the release build (tools/release/src/build/build-app.ts);
// keep the two alike.
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BUNDLES = path.join(REPO, 'dist/service');
/** The service and the Markdown reader's worker thread, where the release build puts them. */
const ENTRIES = [
  { source: path.join(REPO, 'apps/api/src/main.ts'), output: 'apps/api/src/main.js' },
  {
    source: path.join(REPO, 'apps/api/src/resources/reports/markdown-worker.ts'),
    output: 'apps/api/src/markdown-worker.js',
  },
];

/** The files the bundle is built from, as `path size mtime` lines, hashed. */
function sourcesDigest() {
  const hash = createHash('sha256');
  const add = (file) => {
    const s = statSync(file);
    hash.update(`${path.relative(REPO, file)}\0${s.size}\0${s.mtimeMs}\n`);
  };
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'test') walk(full);
      } else if (!entry.name.endsWith('.test.ts')) add(full);
    }
  };
  add(path.join(REPO, 'package.json'));
  add(path.join(REPO, 'package-lock.json'));
  walk(path.join(REPO, 'apps/api/src'));
  walk(path.join(REPO, 'apps/web/src'));
  walk(path.join(REPO, 'migrations'));
  for (const pkg of readdirSync(path.join(REPO, 'packages')).sort()) {
    const dir = path.join(REPO, 'packages', pkg);
    if (existsSync(path.join(dir, 'package.json'))) add(path.join(dir, 'package.json'));
    walk(path.join(dir, 'src'));
  }
  return hash.digest('hex').slice(0, 16);
}

/** Builds the bundle into `out`, a new folder. */
async function build(out) {
  const started = performance.now();
  const { build: esbuild } = await import('esbuild');
  mkdirSync(out, { recursive: true });
  const common = { absWorkingDir: REPO, platform: 'node', format: 'esm', target: 'node20.19', logLevel: 'warning' };
  for (const entry of ENTRIES) {
    await esbuild({
      ...common,
      entryPoints: [entry.source],
      outfile: path.join(out, entry.output),
      bundle: true,
      legalComments: 'none',
      // Bundles the workspace's own packages and leaves every other package to node_modules, as
      // the release does (some find their files next to themselves at run time).
      plugins: [
        {
          name: 'externalize-third-party',
          setup(b) {
            b.onResolve({ filter: /^[^./]/ }, (args) =>
              args.path.startsWith('node:') || args.path.startsWith('@service/')
                ? undefined
                : { path: args.path, external: true },
            );
          },
        },
      ],
    });
  }
  const migrations = path.join(REPO, 'migrations');
  for (const folder of readdirSync(migrations, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    const sources = readdirSync(path.join(migrations, folder.name)).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'),
    );
    if (sources.length === 0) continue;
    await esbuild({
      ...common,
      entryPoints: sources.map((f) => path.join(migrations, folder.name, f)),
      outdir: path.join(out, 'migrations', folder.name),
      bundle: false,
    });
  }
  cpSync(path.join(REPO, 'apps/api/src/workspace/assets'), path.join(out, 'apps/api/src/assets'), { recursive: true });
  const { buildWebApp, WEB_DIST } = await import('@service/web');
  const web = await buildWebApp();
  mkdirSync(path.join(out, 'web/dist/assets'), { recursive: true });
  cpSync(path.join(WEB_DIST, 'manifest.json'), path.join(out, 'web/dist/manifest.json'));
  for (const file of readdirSync(path.join(WEB_DIST, 'assets')))
    if (web.files.includes(file)) cpSync(path.join(WEB_DIST, 'assets', file), path.join(out, 'web/dist/assets', file));
  symlinkSync(path.join('..', '..', '..', 'library'), path.join(out, 'library'), 'dir');
  const { name, version } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  writeFileSync(
    path.join(out, 'package.json'),
    `${JSON.stringify({ name, version, private: true, type: 'module' })}\n`,
  );
  console.error(`npm start: built the service in ${Math.round(performance.now() - started)} ms`);
}

const digest = sourcesDigest();
const OUT = path.join(BUNDLES, digest);
const MAIN = path.join(OUT, 'apps/api/src/main.js');
if (!existsSync(MAIN)) {
  const aside = path.join(BUNDLES, `.${digest}-${process.pid}`);
  try {
    await build(aside);
    try {
      renameSync(aside, OUT);
    } catch (err) {
      // Another start built the same sources first: its bundle is used.
      if (!existsSync(MAIN)) throw err;
    }
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
  // Bundles of older sources are removed (what another start reads is a new folder, not these).
  for (const old of readdirSync(BUNDLES)) {
    if (old !== digest && !old.startsWith('.')) rmSync(path.join(BUNDLES, old), { recursive: true, force: true });
  }
}
// The commit the service reports: the checkout's (build-info.ts falls back to git for a bundle
// without a build-info.json; a source checkout has none unless `npm run build` wrote one).
const buildInfo = path.join(REPO, 'apps/api/build-info.json');
if (existsSync(buildInfo)) cpSync(buildInfo, path.join(OUT, 'apps/api/build-info.json'));
await import(pathToFileURL(MAIN).href);
