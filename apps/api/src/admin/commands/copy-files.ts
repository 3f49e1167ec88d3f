import { defineCommand, OperatorError } from '@service/cli-kit';
import { copyObjects, openObjectStore, type CopyOutcome, type ObjectStore } from '@service/storage';
import type { AdminContext } from '../admin-context.ts';

interface Tally {
  copied: number;
  verified: number;
  replaced: number;
  bytes: number;
  failed: Array<{ key: string; reason: string }>;
}

const MB = 1024 * 1024;

function sizeOf(bytes: number): string {
  return bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/** Copies one organization's objects, printing progress every 100 and each failure as it happens. */
async function copyOrganization(
  ctx: AdminContext,
  organizationId: string,
  target: ObjectStore,
  tally: Tally,
): Promise<void> {
  await ctx.tenants.withTenant(organizationId, async (tenant) => {
    const objects = await ctx.files.expectedObjects(tenant);
    const total = objects.reduce((n, o) => n + o.size, 0);
    ctx.print(`Organization ${organizationId}: ${objects.length} objects, ${sizeOf(total)}.`);
    let done = 0;
    const note = (o: CopyOutcome) => {
      done++;
      if (o.result === 'failed') {
        tally.failed.push(o);
        ctx.print(`  failed ${o.key}: ${o.reason}`);
      } else {
        tally[o.result]++;
        tally.bytes += o.bytes;
      }
      if (done % 100 === 0 || done === objects.length) ctx.print(`  ${done} of ${objects.length} done`);
    };
    await copyObjects(ctx.files.store, target, objects, note);
  });
}

/**
 * `npm run admin -- copy-files --to s3` (or `--to local`): copies every object the rows name from the
 * store in use (FILES_STORE) into the other one, verified by the SHA-256 the rows record. Resumable:
 * objects already in the target are read back and kept when they match. The service keeps running;
 * switch FILES_STORE afterwards and restart it.
 */
export const copyFilesCommand = defineCommand<AdminContext, { to: string; dir?: string; organization?: string }>({
  name: 'copy-files',
  summary: 'Copy the stored files into another store (local directory or S3), verified by checksum (resumable)',
  description:
    'Copies every evidence image and Word template the databases name, from the store FILES_STORE names ' +
    'into the other one (--to s3 reads the S3_* settings; --to local writes under --dir or FILES_DIR), ' +
    'checks each copy against the SHA-256 its row records, and says what it did. Objects already in the ' +
    'target are read back and kept when they match, so an interrupted run is resumed by running it again. ' +
    'Run it once more after stopping the service to take what was uploaded meanwhile; then set FILES_STORE ' +
    'to the target and start the service.',
  options: [
    { flags: '--to <store>', description: 'local or s3: the store to copy into', required: true },
    { flags: '--dir <path>', description: 'with --to local: the directory (default FILES_DIR)' },
    { flags: '--organization <id>', description: 'only this organization (default: every organization)' },
  ],
  examples: [
    'npm run admin -- copy-files --to s3',
    'FILES_STORE=s3 npm run admin -- copy-files --to local --dir /srv/files',
  ],
  async run(ctx, options) {
    if (options.to !== 'local' && options.to !== 's3')
      throw new OperatorError(`--to must be local or s3, not "${options.to.slice(0, 40)}".`);
    const settings = ctx.filesStoreSettings(options.to, options.dir);
    const source = ctx.files.store;
    const target = await openObjectStore(settings);
    try {
      if (target.description === source.description)
        throw new OperatorError(`The service already keeps its files in ${source.description}.`, {
          hint: 'Copy into the other store: --to s3 with the S3_* settings, or --to local.',
        });
      ctx.print(`Copying from ${source.description} to ${target.description}.`);
      const ids = options.organization
        ? [await ctx.organizationFor(options.organization)]
        : await ctx.organizationIds();
      const tally: Tally = { copied: 0, verified: 0, replaced: 0, bytes: 0, failed: [] };
      for (const id of ids) await copyOrganization(ctx, id, target, tally);
      ctx.print(
        `Copied ${tally.copied} objects (${sizeOf(tally.bytes)} in all), ${tally.verified} were there already and ` +
          `match, ${tally.replaced} differed and were replaced, ${tally.failed.length} failed.`,
      );
      if (tally.failed.length > 0)
        throw new OperatorError(`${tally.failed.length} objects could not be copied (listed above).`, {
          hint: 'Fix the cause and run the same command again: what was copied is verified and kept.',
        });
      ctx.print(
        `Every object matches its SHA-256 in ${target.description}. To switch, set FILES_STORE=${options.to}` +
          `${options.to === 'local' && options.dir ? ` and FILES_DIR=${options.dir}` : ''} and restart the service.`,
      );
    } finally {
      await target.close();
    }
  },
});
