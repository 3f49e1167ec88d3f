import type { Knex } from 'knex';
import { diffLibraries, type LibraryDiff } from './diff-libraries.ts';
import { compareItems } from './item-revision.ts';
import { LibraryError } from './library-error.ts';
import type { Library, LibraryFile, LibraryItem } from './library-item.ts';

/**
 * Key of the transaction-scoped advisory lock that serialises refreshes of the shared copy, so two
 * service processes starting at once do not both replace it. Transaction-scoped: it is released
 * with the commit or rollback, whatever happens to the process, and never outlives a pooled
 * connection the way a session lock can.
 */
const REFRESH_LOCK = 7_320_114_001;

/** Rows per INSERT: well under PostgreSQL's 65,535 bind parameters. */
const BATCH = 500;

export interface SharedLibraryRefresh {
  /** False when the shared copy already held this library version (nothing was written). */
  refreshed: boolean;
  previousVersion: string | null;
  version: string;
  /** What changed against the previous shared copy (empty when not refreshed). */
  diff: LibraryDiff;
}

/**
 * Makes the shared database hold `library` (the one the running release ships): in one
 * transaction, replaces every item and file when the recorded library version differs, and does
 * nothing when it is the same. Safe when several processes start at once: they queue on a
 * transaction-scoped advisory lock, and the later ones find the version already recorded.
 */
export async function refreshSharedLibrary(sharedDb: Knex, library: Library): Promise<SharedLibraryRefresh> {
  return sharedDb.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [REFRESH_LOCK]);
    const release = (await trx('library_release').where({ id: 1 }).first('library_version')) as
      | { library_version: string }
      | undefined;
    const previousVersion = release?.library_version ?? null;
    if (previousVersion === library.version) {
      return {
        refreshed: false,
        previousVersion,
        version: library.version,
        diff: { added: [], updated: [], removed: [], unchanged: library.items.length },
      };
    }
    const previousItems = (await trx('library_items').select('kind', 'key', 'revision')) as LibraryItem[];
    await trx('library_items').del();
    await trx('library_files').del();
    const rows = library.items.map((item) => ({
      kind: item.kind,
      key: item.key,
      revision: item.revision,
      language: item.language,
      content: JSON.stringify(item.content),
      library_version: library.version,
    }));
    for (let i = 0; i < rows.length; i += BATCH) await trx('library_items').insert(rows.slice(i, i + BATCH));
    for (const file of library.files) {
      await trx('library_files').insert({
        sha256: file.sha256,
        file_name: file.fileName,
        size: file.size,
        content: Buffer.from(file.bytes),
        library_version: library.version,
      });
    }
    await trx('library_release')
      .insert({ id: 1, library_version: library.version, item_count: library.items.length, loaded_at: trx.fn.now(3) })
      .onConflict('id')
      .merge();
    return {
      refreshed: true,
      previousVersion,
      version: library.version,
      diff: diffLibraries({ items: previousItems }, library),
    };
  });
}

/**
 * The library the shared database holds (what the running release shipped), ready for
 * importGlobals. Throws `library_not_loaded` before the first refresh.
 */
export async function loadSharedLibrary(sharedDb: Knex): Promise<Library> {
  const release = (await sharedDb('library_release').where({ id: 1 }).first('library_version')) as
    | { library_version: string }
    | undefined;
  if (!release) {
    throw new LibraryError('library_not_loaded', 'The shared database holds no global library yet.', {
      hint: 'Start the service once (it loads the library of its release on start), then import.',
    });
  }
  const items = (await sharedDb('library_items').select(
    'kind',
    'key',
    'revision',
    'language',
    'content',
  )) as LibraryItem[];
  const files = (await sharedDb('library_files').select('sha256', 'file_name', 'size', 'content')) as Array<{
    sha256: string;
    file_name: string;
    size: number;
    content: Buffer;
  }>;
  return {
    version: release.library_version,
    items: items.sort(compareItems),
    files: files.map(
      (f): LibraryFile => ({ sha256: f.sha256, fileName: f.file_name, size: f.size, bytes: new Uint8Array(f.content) }),
    ),
  };
}
