import type { Knex } from 'knex';
import { LibraryError } from './library-error.ts';

/**
 * Asks the service to import the global library at its next start (the installer's "yes" after
 * an upgrade, `import-globals`). Kept in the control plane's installation record, so it survives
 * restarts until an import has committed. Throws when the service never started on this
 * database (a fresh installation imports the full library at its first start anyway).
 */
export async function requestGlobalsImport(controlPlane: Knex): Promise<Date> {
  const [row] = (await controlPlane('installation')
    .where({ id: 1 })
    .update({ globals_import_requested_at: controlPlane.fn.now(3) })
    .returning('globals_import_requested_at')) as Array<{
    globals_import_requested_at: Date;
  }>;
  if (!row) {
    throw new LibraryError(
      'library_not_loaded',
      'The service has not started on this database yet, so there is no installation to ask for an import.',
      {
        hint: 'Start the service: a new installation imports the full library at its first start.',
      },
    );
  }
  return row.globals_import_requested_at;
}

/** When an import was requested and not yet done, or null. */
export async function pendingGlobalsImportRequest(controlPlane: Knex): Promise<Date | null> {
  const row = (await controlPlane('installation').where({ id: 1 }).first('globals_import_requested_at')) as
    | { globals_import_requested_at: Date | null }
    | undefined;
  return row?.globals_import_requested_at ?? null;
}

/**
 * Runs `importNow` if an import was requested, and clears the request only when it succeeded.
 * The installation row stays locked meanwhile, so of two processes starting at once one imports
 * and the other then finds no request. Returns whether there was one, and what `importNow` gave.
 */
export async function takeGlobalsImportRequest<T>(
  controlPlane: Knex,
  importNow: (requestedAt: Date) => Promise<T>,
): Promise<{ taken: false } | { taken: true; requestedAt: Date; result: T }> {
  return controlPlane.transaction(async (trx) => {
    const row = (await trx('installation').where({ id: 1 }).forUpdate().first('globals_import_requested_at')) as
      | { globals_import_requested_at: Date | null }
      | undefined;
    const requestedAt = row?.globals_import_requested_at ?? null;
    if (requestedAt === null) return { taken: false as const };
    const result = await importNow(requestedAt);
    await trx('installation').where({ id: 1 }).update({ globals_import_requested_at: null });
    return { taken: true as const, requestedAt, result };
  });
}
