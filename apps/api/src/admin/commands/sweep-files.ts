import { defineCommand, OperatorError } from '@service/cli-kit';
import { SWEEP_GRACE_MS } from '@service/storage';
import type { AdminContext } from '../admin-context.ts';

/**
 * `npm run admin -- sweep-files`: what the service's housekeeping does every 15 minutes, now and for
 * every organization: removes stored objects that were recorded as unclaimed (being written when a
 * process died, or released by a delete) and that no row names.
 */
export const sweepFilesCommand = defineCommand<AdminContext, { olderThanMinutes?: string; organization?: string }>({
  name: 'sweep-files',
  summary: 'Remove stored files no row holds (what a crash or a failed store left), in every organization',
  description:
    'Settles the objects recorded as unclaimed at least --older-than-minutes ago (default 60, so uploads in ' +
    'progress are left alone): those a row names are kept, the others are removed. Safe beside running ' +
    'services and idempotent.',
  options: [
    { flags: '--older-than-minutes <n>', description: 'leave younger records alone (default 60)' },
    { flags: '--organization <id>', description: 'only this organization (default: every organization)' },
  ],
  examples: ['npm run admin -- sweep-files', 'npm run admin -- sweep-files --older-than-minutes 0'],
  async run(ctx, options) {
    const minutes = options.olderThanMinutes === undefined ? SWEEP_GRACE_MS / 60_000 : Number(options.olderThanMinutes);
    if (!Number.isInteger(minutes) || minutes < 0)
      throw new OperatorError('--older-than-minutes must be a whole number of minutes (0 or more).');
    const ids = options.organization ? [await ctx.organizationFor(options.organization)] : await ctx.organizationIds();
    let removed = 0;
    let kept = 0;
    for (const id of ids) {
      const done = await ctx.tenants
        .withTenant(id, (tenant) => ctx.files.sweep(tenant, { olderThanMs: minutes * 60_000, maxBatches: 1_000 }))
        .catch((err: unknown) => {
          ctx.print(`Organization ${id}: skipped (${(err as Error).message})`);
          return null;
        });
      if (!done) continue;
      removed += done.removed;
      kept += done.kept;
      ctx.print(`Organization ${id}: ${done.removed} objects removed, ${done.kept} still named by a row and kept.`);
    }
    ctx.print(`Swept ${ids.length} organization(s): ${removed} objects removed, ${kept} kept.`);
  },
});
