import type { Knex } from 'knex';
import { LibraryError } from './library-error.ts';
import { LIBRARY_KINDS, type Library, type LibraryFile, type LibraryItem, type LibraryKind } from './library-item.ts';
import { WORKSPACE_TABLES, workspaceRowOf, type StoredTemplateFile, type WorkspaceIds } from './workspace-rows.ts';

/**
 * Where the workspace keeps file bytes (the service's file store). `put` stores bytes under a new
 * key, recorded as unclaimed, and returns it; `claim`, in the transaction whose rows name the keys,
 * marks them as held; `settle`, after that transaction (committed or not), removes the objects of
 * keys no row names (those it stored for rows that rolled back, and those rows stopped naming).
 */
export interface LibraryFileStore {
  put(bytes: Uint8Array): Promise<string>;
  claim(trx: Knex.Transaction, keys: readonly string[]): Promise<void>;
  settle(keys: readonly string[]): Promise<void>;
}

export interface ImportGlobalsOptions {
  /** Count what would change and write nothing (no rows, no files). */
  dryRun?: boolean;
  /** Needed when the library has a style with a Word template (not for a dry run). */
  files?: LibraryFileStore;
}

export interface ImportCounts {
  /** Items of the release the workspace did not have. */
  added: number;
  /** Global items overwritten with the release's version (new revision, edited, or marked removed before). */
  updated: number;
  /** Global items already at the release's revision and not edited. */
  unchanged: number;
  /** Global items the release no longer ships, now marked `global_removed_at` (kept, not deleted). */
  removed: number;
  /** Of `updated`: items a user had edited since their import, whose edits the import replaced. */
  overwrittenEdits: number;
}

export interface ImportChange {
  kind: LibraryKind;
  key: string;
  action: 'added' | 'updated' | 'removed';
  /** The workspace copy had been edited by a user; an update replaces those edits. */
  overwrittenEdit: boolean;
}

export interface ImportGlobalsResult {
  libraryVersion: string;
  dryRun: boolean;
  total: ImportCounts;
  byKind: Record<LibraryKind, ImportCounts>;
  /** Every added, updated and removed item (unchanged ones are only counted). */
  changes: ImportChange[];
}

/** Serialises imports into one workspace (two processes starting at once, or start-up and the admin command). */
const IMPORT_LOCK = 7_320_114_002;

const emptyCounts = (): ImportCounts => ({ added: 0, updated: 0, unchanged: 0, removed: 0, overwrittenEdits: 0 });

interface ExistingRow {
  id: string;
  global_key: string;
  global_revision: string | null;
  edited: boolean;
  global_removed_at: Date | null;
  template_storage_key?: string | null;
  template_sha256?: string | null;
}

/**
 * Imports the global library into a workspace, in one transaction: adds the items it lacks,
 * overwrites global items with the release's version (including items a user edited: that is
 * what an import is for), never touches items a user created (`global_key` null), and marks
 * items the release no longer ships as removed from the global library without deleting them.
 * Running it again changes nothing. A dry run returns the same counts and writes nothing.
 */
export async function importGlobals(
  tenantDb: Knex,
  library: Library,
  options: ImportGlobalsOptions = {},
): Promise<ImportGlobalsResult> {
  const dryRun = options.dryRun ?? false;
  const filesBySha = new Map(library.files.map((f) => [f.sha256, f]));
  const stored: string[] = [];
  const obsolete: string[] = [];
  const result: ImportGlobalsResult = {
    libraryVersion: library.version,
    dryRun,
    total: emptyCounts(),
    byKind: Object.fromEntries(LIBRARY_KINDS.map((k) => [k, emptyCounts()])) as Record<LibraryKind, ImportCounts>,
    changes: [],
  };

  try {
    await tenantDb.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(?)', [IMPORT_LOCK]);
      const ids: CollectedIds = { reportStyles: new Map(), reportTemplates: new Map(), scopingTemplates: new Map() };
      // Why this order (LIBRARY_KINDS): styles before the report templates that name them, report
      // and scoping templates before the project types that name them.
      for (const kind of LIBRARY_KINDS) {
        const table = WORKSPACE_TABLES[kind];
        const counts = result.byKind[kind];
        const columns = [
          'id',
          'global_key',
          'global_revision',
          'edited',
          'global_removed_at',
          ...(kind === 'report-style' ? ['template_storage_key', 'template_sha256'] : []),
        ];
        const existing = new Map(
          ((await trx(table).whereNotNull('global_key').forUpdate().select(columns)) as ExistingRow[]).map((r) => [
            r.global_key,
            r,
          ]),
        );
        const touched: string[] = [];
        const release = library.items.filter((i) => i.kind === kind);

        for (const item of release) {
          const row = existing.get(item.key);
          if (row && row.global_revision === item.revision && !row.edited && row.global_removed_at === null) {
            counts.unchanged++;
            rememberId(ids, kind, item.key, row.id);
            continue;
          }
          const action = row ? 'updated' : 'added';
          counts[action]++;
          if (row?.edited) counts.overwrittenEdits++;
          result.changes.push({ kind, key: item.key, action, overwrittenEdit: row?.edited ?? false });
          if (dryRun) continue;

          const templateFile =
            kind === 'report-style'
              ? await templateFileFor(item, row, filesBySha, options.files, stored, obsolete)
              : null;
          const values = {
            ...workspaceRowOf(item, ids, templateFile),
            global_revision: item.revision,
            global_removed_at: null,
          };
          let id: string;
          if (row) {
            await trx(table)
              .where({ id: row.id })
              .update({ ...values, updated_at: trx.fn.now(3) });
            id = row.id;
          } else {
            [{ id }] = (await trx(table)
              .insert({ ...values, global_key: item.key })
              .returning('id')) as [{ id: string }];
          }
          touched.push(id);
          rememberId(ids, kind, item.key, id);
        }

        const shipped = new Set(release.map((i) => i.key));
        const gone = [...existing.values()]
          .filter((r) => !shipped.has(r.global_key) && r.global_removed_at === null)
          .sort((a, b) => (a.global_key < b.global_key ? -1 : 1));
        for (const row of gone) {
          counts.removed++;
          result.changes.push({ kind, key: row.global_key, action: 'removed', overwrittenEdit: false });
        }
        if (dryRun) continue;
        if (gone.length > 0) {
          await trx(table)
            .whereIn(
              'id',
              gone.map((r) => r.id),
            )
            .update({ global_removed_at: trx.fn.now(3), updated_at: trx.fn.now(3) });
        }
        // The hash of what was just written is the baseline "edited" compares against.
        if (touched.length > 0)
          await trx(table)
            .whereIn('id', touched)
            .update({ imported_hash: trx.ref('content_hash') });
      }

      for (const kind of LIBRARY_KINDS)
        for (const key of Object.keys(result.total) as Array<keyof ImportCounts>)
          result.total[key] += result.byKind[kind][key];
      if (stored.length > 0) await options.files!.claim(trx, stored);
      if (!dryRun) {
        await trx('library_import')
          .insert({
            id: 1,
            library_version: library.version,
            counts: JSON.stringify(result.total),
            imported_at: trx.fn.now(3),
          })
          .onConflict('id')
          .merge();
      }
    });
  } finally {
    // Why whatever the outcome: files stored for rows that rolled back, and files no committed row
    // names any more (replaced templates of overwritten styles), go now; the sweep would take them later.
    if (stored.length + obsolete.length > 0) await options.files!.settle([...stored, ...obsolete]).catch(() => {});
  }
  return result;
}

type CollectedIds = { [K in keyof WorkspaceIds]: Map<string, string> };

function rememberId(ids: CollectedIds, kind: LibraryKind, key: string, id: string): void {
  if (kind === 'report-style') ids.reportStyles.set(key, id);
  else if (kind === 'report-template') ids.reportTemplates.set(key, id);
  else if (kind === 'scoping-template') ids.scopingTemplates.set(key, id);
}

/** The Word template a style row should name: reused when the workspace already stores these bytes, else stored now. */
async function templateFileFor(
  item: LibraryItem,
  row: ExistingRow | undefined,
  filesBySha: Map<string, LibraryFile>,
  files: LibraryFileStore | undefined,
  stored: string[],
  obsolete: string[],
): Promise<StoredTemplateFile | null> {
  const ref = item.kind === 'report-style' ? item.content.wordTemplate : null;
  const current = row?.template_storage_key ?? null;
  if (!ref) {
    if (current) obsolete.push(current);
    return null;
  }
  if (current && row?.template_sha256 === ref.sha256)
    return { storageKey: current, fileName: ref.fileName, sha256: ref.sha256, size: ref.size };
  const file = filesBySha.get(ref.sha256);
  if (!file)
    throw new LibraryError(
      'invalid_argument',
      `The library names the Word template ${ref.fileName} (${ref.sha256}) for style ` +
        `${item.key}, but does not hold its bytes.`,
    );
  if (!files)
    throw new LibraryError(
      'invalid_argument',
      `Importing style ${item.key} stores its Word template ${ref.fileName}; pass options.files to importGlobals.`,
    );
  const storageKey = await files.put(file.bytes);
  stored.push(storageKey);
  if (current) obsolete.push(current);
  return { storageKey, fileName: ref.fileName, sha256: ref.sha256, size: ref.size };
}

/** True once the workspace has imported the global library (a brand-new one has not: import it at start). */
export async function workspaceHasLibrary(tenantDb: Knex): Promise<boolean> {
  return (await tenantDb('library_import').where({ id: 1 }).first('id')) !== undefined;
}

/** The last import into the workspace: library version, time and counts; null when it never imported. */
export async function lastGlobalsImport(
  tenantDb: Knex,
): Promise<{ libraryVersion: string; importedAt: Date; counts: ImportCounts } | null> {
  const row = (await tenantDb('library_import').where({ id: 1 }).first('library_version', 'imported_at', 'counts')) as
    | { library_version: string; imported_at: Date; counts: ImportCounts }
    | undefined;
  return row ? { libraryVersion: row.library_version, importedAt: row.imported_at, counts: row.counts } : null;
}
