import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('installation', (t) => {
    t.smallint('id').primary().defaultTo(1);
    t.text('version').notNullable();
    t.text('previous_version');
    t.jsonb('schema_heads').notNullable().defaultTo('{}');
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.check('id = 1', [], 'installation_single_row');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('installation');
}
