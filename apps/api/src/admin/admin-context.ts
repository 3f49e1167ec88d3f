import { UserRepository } from '@service/auth';
import { loadConfig, type Config } from '@service/config';
import { openDatabases, silentLogger, type Databases } from '@service/db';
import { createJsonLogger } from '@service/http';
import type { TenantRouter } from '@service/tenancy';
import { readBuildInfo } from '../build-info.ts';
import { prepareService } from '../prepare-service.ts';

/** What each admin command gets: the organization, its users, the databases, and a way to print. */
export interface AdminContext {
  organizationId: string;
  users: UserRepository;
  dbs: Databases;
  config: Config;
  /** Closed with the databases when the command is done. */
  tenants: TenantRouter;
  print(line: string): void;
}

/**
 * Opens the databases as the service would (attaching to a running service's embedded database),
 * prepares them (migrations, first administrator, licence check), and finds the organization.
 * The caller closes `dbs` when the command is done.
 */
export async function openAdminContext(env: NodeJS.ProcessEnv): Promise<AdminContext> {
  const config = loadConfig(env);
  const dbs = await openDatabases({
    urls: config.databaseUrls,
    dataDir: config.dataDir,
    poolMax: 2,
    startupTimeoutMs: Math.min(config.dbStartupTimeoutMs, 10_000),
    logger: silentLogger,
    attachToRunning: true,
  });
  try {
    const { tenants } = await prepareService({
      config,
      dbs,
      embedded: dbs.embedded !== null || config.databaseUrls === null,
      logger: createJsonLogger('warn', (l) => process.stderr.write(l)),
      build: readBuildInfo(config.buildSha),
    });
    const org = (await dbs.controlPlane('organizations').orderBy('created_at').first('id')) as { id: string };
    return { organizationId: org.id, users: new UserRepository(dbs.controlPlane), dbs, config, tenants, print: (line) => process.stdout.write(`${line}\n`) };
  } catch (err) {
    await dbs.close();
    throw err;
  }
}
