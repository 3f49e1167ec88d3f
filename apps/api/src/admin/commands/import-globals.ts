import { defineCommand, OperatorError } from '@service/cli-kit';
import {
  importGlobals,
  LibraryError,
  loadLibrary,
  refreshSharedLibrary,
  takeGlobalsImportRequest,
  type ImportGlobalsResult,
} from '@service/library';
import { libraryFileStore } from '../../library/library-file-store.ts';
import { LIBRARY_ROOT } from '../../library/prepare-workspace-library.ts';
import type { AdminContext } from '../admin-context.ts';

function describe(result: ImportGlobalsResult): string[] {
  const t = result.total;
  const lines = [
    `${result.dryRun ? 'Would import' : 'Imported'} global library ` +
      `${result.libraryVersion}: ${t.added} new, ${t.updated} ` +
      `updated${t.overwrittenEdits ? ` (${t.overwrittenEdits} of them replacing edits made in this workspace)` : ''}, ` +
      `${t.removed} no longer in the library (kept, marked), ${t.unchanged} unchanged.`,
  ];
  for (const c of result.changes)
    lines.push(`  ${c.action.padEnd(7)} ${c.kind} ${c.key}${c.overwrittenEdit ? ' (your edit is replaced)' : ''}`);
  return lines;
}

/**
 * `npm run admin -- import-globals [--dry-run]`: imports the global library shipped with this
 * release into the workspace, as SPEC's `install.sh import-globals` does. Works on a stopped or
 * running service. Items users made are never touched; edits of global items are overwritten.
 */
export const importGlobalsCommand = defineCommand<AdminContext, { dryRun?: boolean; organization?: string }>({
  name: 'import-globals',
  summary: "Import the release's global library into the workspace",
  description:
    "Adds new library items and overwrites global items with this release's version, " +
    'including items someone edited; items users made themselves are never touched; ' +
    'items the release dropped are marked, not deleted. One transaction; running it ' +
    'again changes nothing. --dry-run lists what would change and writes nothing.',
  options: [
    { flags: '--dry-run', description: 'Show what would change; change nothing.' },
    {
      flags: '--organization <id>',
      description: 'hosted: the organization (see list-organizations); self-hosted has one',
    },
  ],
  examples: ['npm run admin -- import-globals --dry-run', 'npm run admin -- import-globals'],
  async run(ctx, opts) {
    try {
      const library = await loadLibrary(LIBRARY_ROOT);
      await refreshSharedLibrary(ctx.dbs.shared, library);
      const organizationId = await ctx.organizationFor(opts.organization);
      const result = await ctx.tenants.withTenant(organizationId, async (tenant): Promise<ImportGlobalsResult> => {
        const files = libraryFileStore(ctx.files.of(organizationId, tenant));
        if (opts.dryRun) return importGlobals(tenant, library, { dryRun: true, files });
        const run = () => importGlobals(tenant, library, { files });
        if (ctx.config.edition === 'hosted') return run();
        // Why take the request: an import asked for by the installer is fulfilled by this one.
        const taken = await takeGlobalsImportRequest(ctx.dbs.controlPlane, run);
        return taken.taken ? taken.result : run();
      });
      for (const line of describe(result)) ctx.print(line);
    } catch (err) {
      if (err instanceof LibraryError) throw new OperatorError(err.message, { hint: err.hint, cause: err });
      throw err;
    }
  },
});
