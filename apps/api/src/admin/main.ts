// `npm run admin -- <command>`: user administration for operators, without a browser. Works
// beside a running service (it attaches to its embedded database) or on its own. One file per
// command in ./commands; adding a command is that file plus one line in COMMANDS.
import { OperatorError, runCli, type AnyCommand } from '@service/cli-kit';
import { ConfigError } from '@service/config';
import { DatabaseStartupError, EmbeddedServerError, VersionGuardError } from '@service/db';
import { FileStoreStartError } from '@service/storage';
import { TenancyError } from '@service/tenancy';
import { LicenseLoadError } from '../licensing/load-license.ts';
import { openAdminContext, type AdminContext } from './admin-context.ts';
import { checkSeverities } from './commands/check-severities.ts';
import { copyFilesCommand } from './commands/copy-files.ts';
import { sweepFilesCommand } from './commands/sweep-files.ts';
import { createUser } from './commands/create-user.ts';
import { deactivateUser } from './commands/deactivate-user.ts';
import { importGlobalsCommand } from './commands/import-globals.ts';
import { listUsers } from './commands/list-users.ts';
import {
  createOrganization,
  deprovisionOrganizationCommand,
  listOrganizationsCommand,
} from './commands/organizations.ts';
import { requestGlobalsImportCommand } from './commands/request-globals-import.ts';
import { resetPassword } from './commands/reset-password.ts';

const COMMANDS: AnyCommand<AdminContext>[] = [
  createUser,
  resetPassword,
  listUsers,
  deactivateUser,
  requestGlobalsImportCommand,
  importGlobalsCommand,
  createOrganization,
  listOrganizationsCommand,
  deprovisionOrganizationCommand,
  checkSeverities,
  copyFilesCommand,
  sweepFilesCommand,
];

/** Errors of the layers below that already say what is wrong; each gets the next step. */
function translateError(err: unknown): OperatorError | undefined {
  if (err instanceof ConfigError)
    return new OperatorError(err.message, { hint: `Correct ${err.setting} in .env or the environment.`, cause: err });
  if (err instanceof LicenseLoadError)
    return new OperatorError(err.message, {
      hint: 'Point LICENSE_FILE at the licence file the vendor sent, or remove the setting.',
      cause: err,
    });
  if (err instanceof DatabaseStartupError || err instanceof EmbeddedServerError) {
    return new OperatorError(err.message, {
      hint: 'Check the database settings (DATABASE_URL or DATA_DIR) and that PostgreSQL is running.',
      cause: err,
    });
  }
  if (err instanceof FileStoreStartError)
    return new OperatorError(err.message, {
      hint: 'Check FILES_STORE and FILES_DIR, or the S3_* settings, and that the store is running.',
      cause: err,
    });
  if (err instanceof TenancyError)
    return new OperatorError(err.message, { hint: 'Correct TENANT_SERVERS, or see docs/scaling.md.', cause: err });
  if (err instanceof VersionGuardError)
    return new OperatorError(err.message, {
      hint: 'Run the admin command of the version the database records.',
      cause: err,
    });
  return undefined;
}

await runCli<AdminContext>({
  name: 'npm run admin --',
  description: 'Administer users, the library and (hosted) organizations of the service from the command line.',
  commands: COMMANDS,
  context: () => openAdminContext(process.env),
  dispose: async (ctx) => {
    await ctx.tenants.close();
    await ctx.dbs.close();
    await ctx.files.store.close();
  },
  translateError,
});
