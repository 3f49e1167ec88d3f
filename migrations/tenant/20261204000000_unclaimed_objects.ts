import type { Knex } from 'knex';

/**
 * Stored files in an object store (local directory or S3):
 * - `unclaimed_objects`: keys of objects no committed row may name, recorded before an object is
 *   written and again in the transaction that stops naming one; the sweep removes those no row
 *   names (see @service/storage's StoredFiles).
 * - Keys written before organizations had prefixes (40 hex characters) become the path they always
 *   had under FILES_DIR (`evidence/3a/3a9f…`), so every row names an object key and no file moves.
 * - Triggers on the columns naming objects (`evidence_images.storage_key`,
 *   `report_styles.template_storage_key`): a row deleted (also by a cascade) or naming another
 *   object records the object it named as unclaimed, in the same transaction, so no path that
 *   removes a row can leave its object behind for good.
 * - An index on the Word template column, for the sweep's "does a row name it" check.
 */
const NAMING = [
  ['evidence_images', 'storage_key'],
  ['report_styles', 'template_storage_key'],
] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('unclaimed_objects', (t) => {
    t.text('key').primary();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.index(['created_at']);
  });
  await knex.raw(
    `update evidence_images set storage_key = 'evidence/' || substr(storage_key, 1, 2) || '/' || storage_key
     where storage_key ~ '^[0-9a-f]{40}$'`,
  );
  await knex.raw(
    `update report_styles set template_storage_key = 'evidence/' || substr(template_storage_key, 1, 2) || '/' || template_storage_key
     where template_storage_key ~ '^[0-9a-f]{40}$'`,
  );
  await knex.schema.alterTable('report_styles', (t) => t.index(['template_storage_key']));
  // Why after the keys are rewritten: the rewrite names the same files and must release nothing.
  await knex.raw(`
    create function release_stored_object() returns trigger language plpgsql as $$
    declare
      released text := to_jsonb(old) ->> tg_argv[0];
    begin
      if released is not null and (tg_op = 'DELETE' or released is distinct from to_jsonb(new) ->> tg_argv[0]) then
        insert into unclaimed_objects (key) values (released) on conflict (key) do nothing;
      end if;
      return null;
    end $$`);
  for (const [table, column] of NAMING)
    await knex.raw(
      `create trigger ${table}_release_object after delete or update of ${column} on ${table}
       for each row execute function release_stored_object('${column}')`,
    );
}

export async function down(knex: Knex): Promise<void> {
  for (const [table] of NAMING) await knex.raw(`drop trigger if exists ${table}_release_object on ${table}`);
  await knex.raw('drop function if exists release_stored_object');
  await knex.schema.alterTable('report_styles', (t) => t.dropIndex(['template_storage_key']));
  await knex.raw(
    `update report_styles set template_storage_key = substr(template_storage_key, 13)
     where template_storage_key ~ '^evidence/[0-9a-f]{2}/[0-9a-f]{40}$'`,
  );
  await knex.raw(
    `update evidence_images set storage_key = substr(storage_key, 13)
     where storage_key ~ '^evidence/[0-9a-f]{2}/[0-9a-f]{40}$'`,
  );
  await knex.schema.dropTable('unclaimed_objects');
}
