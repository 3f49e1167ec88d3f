import path from 'node:path';
import type { Knex } from 'knex';
import type { Config } from '@service/config';
import type { JsonLogger } from '@service/http';
import { prepareLibraryOnStart, refreshSharedLibrary, loadLibrary } from '@service/library';
import type { StoredFiles } from '@service/storage';
import { REPO_ROOT } from '../build-info.ts';
import { libraryFileStore } from './library-file-store.ts';

/** `library/` of the running release: at the repository root, and at the root of the built app in the release image. */
export const LIBRARY_ROOT = path.join(REPO_ROOT, 'library');

/**
 * The library's part of start-up, after migrations: the shared database gets the release's
 * library when its version changed. Self-hosted: a workspace that never imported gets the full
 * library, and an import requested by the installer or `import-globals` is carried out. Hosted:
 * workspaces get the library when they are provisioned, and only on request later.
 */
export async function prepareWorkspaceLibrary(options: {
  config: Config;
  dbs: { controlPlane: Knex; shared: Knex; tenant: Knex };
  logger: JsonLogger;
  files: StoredFiles;
  /** Self-hosted: the one organization, whose workspace is `dbs.tenant`. */
  organizationId: string;
}): Promise<void> {
  const { config, dbs, logger } = options;
  if (config.edition === 'hosted') {
    const shared = await refreshSharedLibrary(dbs.shared, await loadLibrary(LIBRARY_ROOT));
    logger.info('library', { shared });
    return;
  }
  const result = await prepareLibraryOnStart({
    libraryDir: LIBRARY_ROOT,
    sharedDb: dbs.shared,
    tenantDb: dbs.tenant,
    controlPlane: dbs.controlPlane,
    files: libraryFileStore(options.files.of(options.organizationId, dbs.tenant)),
    cacheFile: path.join(config.dataDir, 'library-start-cache.json'),
  });
  logger.info('library', {
    version: result.libraryVersion,
    shared: result.shared,
    importReason: result.importReason,
    imported: result.imported?.total ?? null,
  });
}
