import type { Knex } from 'knex';

/**
 * The global library as shipped by the running release, item by item, so every workspace can
 * import from it (hosted: many tenant databases, one shared copy). Replaced whole by the service
 * on start when the release's library version differs (refreshSharedLibrary).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('library_items', (t) => {
    t.text('kind').notNullable();
    t.text('key').notNullable();
    t.text('revision').notNullable();
    // Null for report styles, which have no text of their own.
    t.text('language');
    t.jsonb('content').notNullable();
    t.text('library_version').notNullable();
    t.primary(['kind', 'key']);
    // Why unique on key alone: keys are unique across the whole library, whatever the kind.
    t.unique(['key']);
    t.check(
      "kind in ('finding-template', 'report-template', 'report-style', 'narrative', " +
        "'scoping-template', 'project-type')",
      [],
      'library_items_kind',
    );
  });
  // Files items refer to (a style's Word template), by the SHA-256 of their bytes.
  await knex.schema.createTable('library_files', (t) => {
    t.text('sha256').primary();
    t.text('file_name').notNullable();
    t.integer('size').notNullable();
    t.binary('content').notNullable();
    t.text('library_version').notNullable();
  });
  await knex.schema.alterTable('library_release', (t) => {
    t.integer('item_count').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('library_release', (t) => {
    t.dropColumn('item_count');
  });
  await knex.schema.dropTable('library_files');
  await knex.schema.dropTable('library_items');
}
