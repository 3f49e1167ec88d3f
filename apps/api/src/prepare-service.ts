import { bootstrapOrganization, describeLicense, type License } from '@service/auth';
import type { Config } from '@service/config';
import { prepareDatabases, type Databases } from '@service/db';
import type { JsonLogger } from '@service/http';
import type { BuildInfo } from './build-info.ts';
import { prepareWorkspaceLibrary } from './library/prepare-workspace-library.ts';
import { loadLicense } from './licensing/load-license.ts';

/**
 * Everything between opening the databases and listening: refuse a downgrade, migrate, record
 * the version, create the organization and first administrator on a fresh install, load the
 * licence. Shared by `main.ts`, the admin command and the test harness.
 */
export async function prepareService(options: {
  config: Config;
  dbs: Pick<Databases, 'controlPlane' | 'shared' | 'tenant'>;
  embedded: boolean;
  logger: JsonLogger;
  build: BuildInfo;
}): Promise<{ license: License | null }> {
  const { config, dbs, logger } = options;
  await prepareDatabases(dbs, options.build.version);
  const boot = await bootstrapOrganization(dbs.controlPlane, { adminEmail: config.adminEmail, adminPassword: config.adminPassword });
  if (boot.createdAdmin?.generatedPassword) {
    // Why: the one secret ever logged, on purpose and once: without it nobody could sign in.
    logger.warn('first_administrator_created', {
      email: boot.createdAdmin.email,
      password: boot.createdAdmin.generatedPassword,
      message: 'Sign in with this password and change it; it is not shown again. Set SERVICE_ADMIN_EMAIL and SERVICE_ADMIN_PASSWORD to choose them.',
    });
  } else if (boot.createdAdmin) {
    logger.info('first_administrator_created', { email: boot.createdAdmin.email });
  }
  await prepareWorkspaceLibrary({ config, dbs, logger });
  const license = await loadLicense({ licenseFile: config.licenseFile, trustedKeys: config.licenseTrustedKeys, embedded: options.embedded, controlPlane: dbs.controlPlane });
  logger.info('license', { summary: describeLicense(license, new Date()) });
  return { license };
}
