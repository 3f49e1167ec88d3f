// Builds the workspace app (apps/web/src) into apps/web/dist with esbuild:
//   dist/assets/<name>-<hash>.js|.css   content-hashed, so they are served with an immutable cache
//   dist/manifest.json                   the entry script and stylesheet, the first page's scripts,
//                                        and the digest of the sources they were built from
// The build is skipped when manifest.json names the digest of the current sources (path, size and
// modification time of apps/web/src, the browser-side packages' sources, package-lock.json), so
// `npm start`, `npm test` and each browser test can all ask for it: only the first one builds.
// Assets are written under temporary names and renamed, and manifest.json last, so a concurrent
// build or a running service never reads half a file.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const WEB_DIST = path.join(REPO, 'apps/web/dist');
const SOURCES = ['apps/web/src', 'packages/markdown/src', 'packages/report-model/src', 'packages/client/src/generated'];

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
      if (entry.isDirectory()) walk(full);
      else if (!entry.name.endsWith('.test.ts')) add(full);
    }
  };
  add(path.join(REPO, 'package-lock.json'));
  add(fileURLToPath(import.meta.url));
  for (const dir of SOURCES) walk(path.join(REPO, dir));
  return hash.digest('hex').slice(0, 16);
}

/** Writes a file under a temporary name and renames it into place. */
function writeAtomically(file, bytes) {
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, bytes);
  renameSync(aside, file);
}

/** The scripts a page loads before it can show anything: the entry and what it imports statically. */
function firstPageScripts(metafile, entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? [])
      if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(entry);
  return [...seen];
}

/**
 * Builds the app unless the current build is of the same sources. Returns the manifest:
 * `{ digest, files, script, stylesheet, firstPage: [{ file, bytes, gzipBytes }] }` (files under assets/).
 */
export async function buildWebApp({ force = false, log = console.error } = {}) {
  const digest = sourcesDigest();
  const manifestFile = path.join(WEB_DIST, 'manifest.json');
  if (!force && existsSync(manifestFile)) {
    const current = JSON.parse(readFileSync(manifestFile, 'utf8'));
    if (current.digest === digest) return current;
  }
  const started = performance.now();
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: REPO,
    entryPoints: { app: 'apps/web/src/main.tsx' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome111', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    define: { 'process.env.NODE_ENV': '"production"' },
    metafile: true,
    write: false,
    outdir: path.join(WEB_DIST, 'assets'),
    logLevel: 'warning',
  });
  mkdirSync(path.join(WEB_DIST, 'assets'), { recursive: true });
  for (const out of result.outputFiles) if (!existsSync(out.path)) writeAtomically(out.path, out.contents);
  const outputs = Object.keys(result.metafile.outputs);
  const entry = outputs.find((f) => result.metafile.outputs[f].entryPoint && f.endsWith('.js'));
  const css = outputs.find((f) => f.endsWith('.css') && path.basename(f).startsWith('app-'));
  const byPath = new Map(result.outputFiles.map((f) => [path.relative(REPO, f.path), f.contents]));
  const manifest = {
    digest,
    files: outputs.map((f) => path.basename(f)),
    script: path.basename(entry),
    stylesheet: css ? path.basename(css) : null,
    firstPage: firstPageScripts(result.metafile, entry).map((file) => {
      const bytes = byPath.get(file) ?? new Uint8Array();
      return {
        file: path.basename(file),
        bytes: bytes.byteLength,
        gzipBytes: gzipSync(bytes, { level: 9 }).byteLength,
      };
    }),
  };
  writeAtomically(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  log(`web: built the workspace app in ${Math.round(performance.now() - started)} ms`);
  return manifest;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const manifest = await buildWebApp({ force: process.argv.includes('--force') });
  const gzip = manifest.firstPage.reduce((n, f) => n + f.gzipBytes, 0);
  console.error(`web: first page JavaScript ${(gzip / 1024).toFixed(1)} KB gzip (${manifest.firstPage.length} files)`);
}
