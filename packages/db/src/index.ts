export {
  openDatabases,
  createKnex,
  createUntimedKnex,
  ensureDatabase,
  DatabaseStartupError,
  DEFAULT_DATABASE_TIMEOUTS,
} from './open-databases.ts';
export type { Databases, DatabaseTimeouts, DatabaseUrls, OpenDatabasesOptions } from './open-databases.ts';
export { startEmbeddedServer, findRunningEmbeddedServer, EmbeddedServerError } from './embedded-server.ts';
export type { EmbeddedServer } from './embedded-server.ts';
export { DATABASE_NAMES, DATABASE_FOLDERS } from './database-names.ts';
export type { DatabaseName } from './database-names.ts';
export { isDatabaseUnavailableError, describeDatabaseError } from './database-errors.ts';
export { isStatementTimeout, limitStatementTime } from './statement-time.ts';
export { migrateDatabases, migrationConfig, MIGRATIONS_ROOT } from './migrate.ts';
export { prepareDatabases } from './prepare-databases.ts';
export { assertNotDowngrade, readInstallation, recordInstallation, VersionGuardError } from './version-guard.ts';
export type { InstallationRecord } from './version-guard.ts';
export { checkDatabases } from './check-databases.ts';
export type { DatabaseChecks } from './check-databases.ts';
export { silentLogger } from './logger.ts';
export type { Logger } from './logger.ts';
