import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { DATABASE_FOLDERS, DATABASE_NAMES, type DatabaseName } from './database-names.ts';

/** `migrations/` at the repository root (and at the same place in the release image). */
export const MIGRATIONS_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations');

type MigrationModule = { up(knex: Knex): Promise<void>; down?(knex: Knex): Promise<void> };

/** Loads TypeScript migration modules from one folder, in file-name order. */
class FolderMigrationSource implements Knex.MigrationSource<string> {
  constructor(private readonly dir: string) {}

  async getMigrations(): Promise<string[]> {
    return readdirSync(this.dir)
      .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts') && !f.endsWith('.test.ts'))
      .sort();
  }

  getMigrationName(migration: string): string {
    return migration.replace(/\.(ts|js)$/, '');
  }

  async getMigration(migration: string): Promise<Knex.Migration> {
    const mod = (await import(pathToFileURL(path.join(this.dir, migration)).href)) as MigrationModule;
    return { up: mod.up, down: mod.down ?? (async () => {}) };
  }
}

/** The migrations of one of the three databases (also used for every hosted tenant database). */
export function migrationConfig(name: DatabaseName): Knex.MigratorConfig {
  return {
    migrationSource: new FolderMigrationSource(path.join(MIGRATIONS_ROOT, DATABASE_FOLDERS[name])),
    tableName: 'knex_migrations',
  };
}

/** Applies pending migrations to the three databases; returns each database's schema head. */
export async function migrateDatabases(dbs: Record<DatabaseName, Knex>): Promise<Record<DatabaseName, string | null>> {
  const heads = {} as Record<DatabaseName, string | null>;
  for (const name of DATABASE_NAMES) {
    const config = migrationConfig(name);
    await dbs[name].migrate.latest(config);
    const [completed] = (await dbs[name].migrate.list(config)) as [Array<{ name: string }>, unknown];
    heads[name] = completed.length > 0 ? completed[completed.length - 1]!.name : null;
  }
  return heads;
}
