import type { Knex } from 'knex';

/**
 * A key may add the clients it creates to its own allow-list (off by default): a CI job that
 * creates its client, project and report with its key can then import into that report. Existing
 * keys keep working as they did.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table api_keys add column adds_created_clients boolean not null default false');
  await knex.raw(
    `comment on column api_keys.adds_created_clients is 'clients created with this key join its allow-list'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table api_keys drop column adds_created_clients');
}
