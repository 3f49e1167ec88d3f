import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { takeGlobalsImportRequest } from './globals-import-request.ts';
import {
  importGlobals,
  workspaceHasLibrary,
  type ImportGlobalsResult,
  type LibraryFileStore,
} from './import-globals.ts';
import { loadLibrary } from './read-library.ts';
import { refreshSharedLibrary, type SharedLibraryRefresh } from './shared-library.ts';

export interface LibraryOnStart {
  libraryVersion: string;
  shared: SharedLibraryRefresh;
  /** Why the workspace imported at this start, or null when it did not. */
  importReason: 'new-workspace' | 'requested' | null;
  imported: ImportGlobalsResult | null;
}

/**
 * The library's part of service start-up, after migrations (SPEC "Global library update during
 * upgrade"): load the release's `library/` into the shared database when its version changed;
 * give a workspace that never imported the full library; and carry out an import requested by
 * the installer or `import-globals`. Nothing else is imported automatically: after an upgrade,
 * workspaces keep their items until an import is requested.
 */
export async function prepareLibraryOnStart(deps: {
  libraryDir: string;
  sharedDb: Knex;
  tenantDb: Knex;
  controlPlane: Knex;
  files: LibraryFileStore;
  /**
   * Where to remember the digest of `libraryDir`'s files and the version they load as. Why: reading
   * the library takes one to three seconds, most of a warm start; when the files are the ones last
   * read, the shared database holds their version, the workspace has imported and no import is
   * requested, there is nothing to do and the library is not read.
   */
  cacheFile?: string;
}): Promise<LibraryOnStart> {
  const digest = deps.cacheFile ? await libraryDigest(deps.libraryDir) : null;
  if (digest !== null && deps.cacheFile) {
    const unchanged = await unchangedSinceLastStart(deps, deps.cacheFile, digest);
    if (unchanged) return unchanged;
  }
  const library = await loadLibrary(deps.libraryDir);
  const shared = await refreshSharedLibrary(deps.sharedDb, library);
  const run = () => importGlobals(deps.tenantDb, library, { files: deps.files });
  let importReason: LibraryOnStart['importReason'] = null;
  let imported: ImportGlobalsResult | null = null;
  if (!(await workspaceHasLibrary(deps.tenantDb))) {
    importReason = 'new-workspace';
    imported = await run();
  }
  // Why after the first import: a request made before the first start is then already fulfilled;
  // taking it re-runs the import, which changes nothing and clears the request.
  const requested = await takeGlobalsImportRequest(deps.controlPlane, run);
  if (requested.taken && importReason === null) {
    importReason = 'requested';
    imported = requested.result;
  }
  if (digest !== null && deps.cacheFile) {
    const cache: StartCache = { digest, version: library.version, items: library.items.length };
    // Why errors are ignored: the cache only saves time; without it the next start reads the library.
    await mkdir(path.dirname(deps.cacheFile), { recursive: true })
      .then(() => writeFile(deps.cacheFile!, `${JSON.stringify(cache)}\n`))
      .catch(() => {});
  }
  return { libraryVersion: library.version, shared, importReason, imported };
}

interface StartCache {
  digest: string;
  version: string;
  items: number;
}

async function unchangedSinceLastStart(
  deps: { sharedDb: Knex; tenantDb: Knex; controlPlane: Knex },
  cacheFile: string,
  digest: string,
): Promise<LibraryOnStart | null> {
  let cache: StartCache;
  try {
    cache = JSON.parse(await readFile(cacheFile, 'utf8')) as StartCache;
  } catch {
    return null;
  }
  if (cache.digest !== digest || typeof cache.version !== 'string') return null;
  const release = (await deps.sharedDb('library_release').where({ id: 1 }).first('library_version')) as
    | { library_version: string }
    | undefined;
  if (release?.library_version !== cache.version || !(await workspaceHasLibrary(deps.tenantDb))) return null;
  const request = (await deps.controlPlane('installation').where({ id: 1 }).first('globals_import_requested_at')) as
    | { globals_import_requested_at: Date | null }
    | undefined;
  if (request?.globals_import_requested_at) return null;
  return {
    libraryVersion: cache.version,
    shared: {
      refreshed: false,
      previousVersion: cache.version,
      version: cache.version,
      diff: { added: [], updated: [], removed: [], unchanged: cache.items },
    },
    importReason: null,
    imported: null,
  };
}

/** SHA-256 over every file of the library folder: its path and content, in path order. */
async function libraryDigest(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const files = entries
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))
    .sort();
  for (const file of files) {
    const content = await readFile(file);
    hash.update(`${path.relative(dir, file)}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest('hex');
}
