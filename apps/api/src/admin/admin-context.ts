import { UserRepository } from '@service/auth';
import { OperatorError } from '@service/cli-kit';
import { loadConfig, type Config, type FilesStoreConfig } from '@service/config';
import { openDatabases, silentLogger, type Databases } from '@service/db';
import { createJsonLogger } from '@service/http';
import type { StoredFiles } from '@service/storage';
import type { TenantRouter } from '@service/tenancy';
import { readBuildInfo } from '../build-info.ts';
import { openStoredFiles } from '../files/open-stored-files.ts';
import { prepareService } from '../prepare-service.ts';

/** What each admin command gets: the organization, its users, the databases, and a way to print. */
export interface AdminContext {
  /**
   * The organization a command works on: self-hosted, the one; hosted, the one named by
   * `--organization` (needed once there are several).
   */
  organizationFor(id: string | undefined): Promise<string>;
  users: UserRepository;
  dbs: Databases;
  config: Config;
  /** Closed with the databases when the command is done. */
  tenants: TenantRouter;
  /** The file store `FILES_STORE` names; closed when the command is done. */
  files: StoredFiles;
  /** The settings of a store of `kind` as the same environment gives them (`dir`: instead of FILES_DIR). */
  filesStoreSettings(kind: 'local' | 's3', dir?: string): FilesStoreConfig;
  /** Every organization's id, oldest first. */
  organizationIds(): Promise<string[]>;
  print(line: string): void;
}

/**
 * Opens the databases as the service would (attaching to a running service's embedded database),
 * prepares them (migrations, first administrator, licence check), and finds the organization.
 * The caller closes `dbs` when the command is done.
 */
export async function openAdminContext(env: NodeJS.ProcessEnv): Promise<AdminContext> {
  const config = loadConfig(env);
  const files = await openStoredFiles(config);
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
      files,
    });
    const organizationFor = async (id: string | undefined): Promise<string> => {
      const ids = (await dbs.controlPlane('organizations').orderBy('created_at').pluck('id')) as string[];
      if (id === undefined) {
        if (ids.length === 1) return ids[0]!;
        throw new OperatorError(`There are ${ids.length} organizations; name one with --organization <id>.`, {
          hint: 'List them with: npm run admin -- list-organizations',
        });
      }
      if (!ids.includes(id.toLowerCase()))
        throw new OperatorError(`There is no organization ${id.slice(0, 80)}.`, {
          hint: 'List them with: npm run admin -- list-organizations',
        });
      return id.toLowerCase();
    };
    return {
      organizationFor,
      users: new UserRepository(dbs.controlPlane),
      dbs,
      config,
      tenants,
      files,
      filesStoreSettings: (kind, dir) =>
        loadConfig({ ...env, FILES_STORE: kind, ...(dir ? { FILES_DIR: dir } : {}) }).filesStore,
      organizationIds: async () =>
        (await dbs.controlPlane('organizations').orderBy('created_at').pluck('id')) as string[],
      print: (line) => process.stdout.write(`${line}\n`),
    };
  } catch (err) {
    await dbs.close();
    await files.store.close();
    throw err;
  }
}
