import path from 'node:path';

// Where things are in an installation directory (INSTALLER.md "The install directory").

export const DEFAULT_HOME = '/opt/service';

/**
 * The three databases: their key in manifests, their name in PostgreSQL (derived from POSTGRES_DB `service`), their
 * dump in a backup.
 */
export const DATABASES = [
  { key: 'controlPlane', name: 'service_control_plane', dump: 'databases/control-plane.dump' },
  { key: 'shared', name: 'service_shared', dump: 'databases/shared.dump' },
  { key: 'tenant', name: 'service_tenant', dump: 'databases/tenant.dump' },
] as const;
export type DatabaseKey = (typeof DATABASES)[number]['key'];
export type SchemaHeads = Record<DatabaseKey, string | null>;

/** The service's data directory (DATA_DIR, /data in the app container). */
export const APP_DATA_DIR = 'data/app';
/** File storage (FILES_DIR): evidence images and other stored files. */
export const FILES_DIR = 'data/app/files';
export const POSTGRES_DATA_DIR = 'data/postgres';
/** The licence folder, mounted read-only at /license. */
export const LICENSE_DIR = 'license';
export const BACKUPS_DIR = 'backups';
/** Installer state that is not the operator's: the file-swap journal. */
export const INSTALLER_STATE_DIR = '.installer';

export function previousReleaseDir(home: string, version: string): string {
  return path.join(home, `.previous-${version}`);
}
