export const DATABASE_NAMES = ['controlPlane', 'shared', 'tenant'] as const;
export type DatabaseName = (typeof DATABASE_NAMES)[number];

/** Folder under `migrations/` and the label used in messages. */
export const DATABASE_FOLDERS: Record<DatabaseName, string> = {
  controlPlane: 'control-plane',
  shared: 'shared',
  tenant: 'tenant',
};
