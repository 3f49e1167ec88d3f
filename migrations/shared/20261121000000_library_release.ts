import type { Knex } from 'knex';

/** The global library as shipped by the running release: which library version is loaded. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('library_release', (t) => {
    t.smallint('id').primary().defaultTo(1);
    t.text('library_version').notNullable();
    t.timestamp('loaded_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.check('id = 1', [], 'library_release_single_row');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('library_release');
}
