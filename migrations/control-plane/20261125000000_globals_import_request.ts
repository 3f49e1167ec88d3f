import type { Knex } from 'knex';

/**
 * "Import the global library at the next start": set by the installer's "yes" after an upgrade
 * and by `import-globals`, taken (and cleared) by the service once the import has committed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('installation', (t) => {
    t.timestamp('globals_import_requested_at', { useTz: true, precision: 3 });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('installation', (t) => {
    t.dropColumn('globals_import_requested_at');
  });
}
