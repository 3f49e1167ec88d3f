// `npm start`: runs the service as built JavaScript, the way the release image runs it, instead of
// TypeScript through a loader (which cost 60-100 MB of memory and most of a second at each start).
//
// The bundle lives in dist/service/ (ignored by git), laid out like the release's app root:
//   dist/service/package.json               the root package.json's name and version
//   dist/service/apps/api/src/main.js       the service: workspace code bundled, node_modules imported
//   dist/service/apps/api/src/assets/       the workspace pages' stylesheet and script (copied)
//   dist/service/migrations/<database>/*.js the knex migrations, one file each
//   dist/service/library -> ../../library   the global library
// It is rebuilt when missing or stale: when any source it is built from (apps/api/src, the
// packages' sources and manifests, migrations, package.json, package-lock.json) differs in path,
// size or modification time from what the last build recorded. The build takes about a second;
// a fresh bundle starts with no build step and without loading esbuild at all.
//
// The esbuild options are those of the release build (tools/release/src/build/build-app.ts);
// keep the two alike.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const OUT = path.join(REPO, 'dist/service');
const MAIN = path.join(OUT, 'apps/api/src/main.js');
const STAMP = path.join(OUT, 'sources.sha256');
const ENTRY = path.join(REPO, 'apps/api/src/main.ts');

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
  walk(path.join(REPO, 'migrations'));
  for (const pkg of readdirSync(path.join(REPO, 'packages')).sort()) {
    const dir = path.join(REPO, 'packages', pkg);
    if (existsSync(path.join(dir, 'package.json'))) add(path.join(dir, 'package.json'));
    walk(path.join(dir, 'src'));
  }
  return hash.digest('hex');
}

async function build(digest) {
  const started = performance.now();
  const { build: esbuild } = await import('esbuild');
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const common = { absWorkingDir: REPO, platform: 'node', format: 'esm', target: 'node20.19', logLevel: 'warning' };
  await esbuild({
    ...common,
    entryPoints: [ENTRY],
    outfile: MAIN,
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
  const migrations = path.join(REPO, 'migrations');
  for (const folder of readdirSync(migrations, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    const sources = readdirSync(path.join(migrations, folder.name)).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'),
    );
    if (sources.length === 0) continue;
    await esbuild({
      ...common,
      entryPoints: sources.map((f) => path.join(migrations, folder.name, f)),
      outdir: path.join(OUT, 'migrations', folder.name),
      bundle: false,
    });
  }
  cpSync(path.join(REPO, 'apps/api/src/workspace/assets'), path.join(OUT, 'apps/api/src/assets'), { recursive: true });
  symlinkSync(path.join('..', '..', 'library'), path.join(OUT, 'library'), 'dir');
  const { name, version } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  writeFileSync(
    path.join(OUT, 'package.json'),
    `${JSON.stringify({ name, version, private: true, type: 'module' })}\n`,
  );
  writeFileSync(STAMP, `${digest}\n`);
  console.error(`npm start: built dist/service in ${Math.round(performance.now() - started)} ms`);
}

const digest = sourcesDigest();
const built = existsSync(MAIN) && existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : null;
if (built !== digest) await build(digest);
// The commit the service reports: the checkout's (build-info.ts falls back to git for a bundle
// without a build-info.json; a source checkout has none unless `npm run build` wrote one).
const buildInfo = path.join(REPO, 'apps/api/build-info.json');
if (existsSync(buildInfo)) cpSync(buildInfo, path.join(OUT, 'apps/api/build-info.json'));
await import(pathToFileURL(MAIN).href);
