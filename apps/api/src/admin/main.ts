// `npm run admin -- <command>`: user administration for operators, without a browser. Works
// beside a running service (it attaches to its embedded database) or on its own.
import { Command } from 'commander';
import { UserRepository } from '@service/auth';
import { ConfigError, loadConfig } from '@service/config';
import { DatabaseStartupError, EmbeddedServerError, openDatabases, silentLogger, VersionGuardError } from '@service/db';
import { createJsonLogger } from '@service/http';
import { readBuildInfo } from '../build-info.ts';
import { prepareService } from '../prepare-service.ts';
import { AdminError, type AdminCommand } from './admin-command.ts';
import { createUser } from './commands/create-user.ts';
import { deactivateUser } from './commands/deactivate-user.ts';
import { listUsers } from './commands/list-users.ts';
import { resetPassword } from './commands/reset-password.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command types its own options
type AnyCommand = AdminCommand<any>;
const COMMANDS: AnyCommand[] = [createUser, resetPassword, listUsers, deactivateUser];

async function runCommand(command: AnyCommand, options: unknown): Promise<void> {
  const config = loadConfig(process.env);
  const dbs = await openDatabases({
    urls: config.databaseUrls,
    dataDir: config.dataDir,
    poolMax: 2,
    startupTimeoutMs: Math.min(config.dbStartupTimeoutMs, 10_000),
    logger: silentLogger,
    attachToRunning: true,
  });
  try {
    await prepareService({ config, dbs, embedded: dbs.embedded !== null || config.databaseUrls === null, logger: createJsonLogger('warn', (l) => process.stderr.write(l)), build: readBuildInfo(config.buildSha) });
    const org = await dbs.controlPlane('organizations').orderBy('created_at').first();
    await command.run({ organizationId: org.id, users: new UserRepository(dbs.controlPlane), print: (line) => process.stdout.write(`${line}\n`) }, options);
  } finally {
    await dbs.close();
  }
}

const program = new Command('admin').description('Administer users of the service from the command line.').showHelpAfterError();
for (const command of COMMANDS) {
  const sub = program.command(command.name).description(command.summary);
  for (const o of command.options) {
    if (o.required) sub.requiredOption(o.flags, o.description);
    else sub.option(o.flags, o.description);
  }
  sub.action(async (options: unknown) => {
    try {
      await runCommand(command, options);
    } catch (err) {
      if (err instanceof AdminError) {
        process.stderr.write(`admin: ${err.message}\n${err.hint ? `  ${err.hint}\n` : ''}`);
        process.exit(1);
      }
      if (err instanceof ConfigError || err instanceof DatabaseStartupError || err instanceof EmbeddedServerError || err instanceof VersionGuardError) {
        process.stderr.write(`admin: ${err.message}\n`);
        process.exit(1);
      }
      throw err;
    }
  });
}

await program.parseAsync(process.argv);
