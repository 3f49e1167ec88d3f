import { defineCommand, OperatorError } from '@service/cli-kit';
import { LibraryError, requestGlobalsImport } from '@service/library';
import type { AdminContext } from '../admin-context.ts';

/**
 * The installer's "yes" to the library question, and `install.sh import-globals`: records the
 * request in the control plane; the service imports the release's global library at its next
 * start (overwriting user edits to global items) and clears the request once that committed.
 */
export const requestGlobalsImportCommand = defineCommand<AdminContext, Record<string, never>>({
  name: 'request-globals-import',
  summary: "Ask the service to import the release's global library at its next start",
  description:
    'The import overwrites user edits to global library items; items users made ' +
    'themselves are never touched. Restart the service to run it.',
  examples: ['npm run admin -- request-globals-import'],
  async run(ctx) {
    try {
      const at = await requestGlobalsImport(ctx.dbs.controlPlane);
      ctx.print(`Library import requested at ${at.toISOString()}; it runs when the service next starts.`);
    } catch (err) {
      if (err instanceof LibraryError) throw new OperatorError(err.message, { hint: err.hint, cause: err });
      throw err;
    }
  },
});
