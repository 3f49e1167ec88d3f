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
}): Promise<LibraryOnStart> {
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
  return { libraryVersion: library.version, shared, importReason, imported };
}
