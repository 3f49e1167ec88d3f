import type { Knex } from 'knex';

/**
 * The client allow-list as the specification reads it: "Edits, deletes and evidence uploads also
 * need the affected client on the key's allow-list". A key with no clients on its list edits
 * nothing; there is no longer a null meaning "every client". Existing keys with null get an empty
 * list: after this upgrade they read, export and create as before, and their owners add the clients
 * they should edit on the API keys page.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`update api_keys set client_ids = '{}' where client_ids is null`);
  await knex.raw(`alter table api_keys alter column client_ids set default '{}'`);
  await knex.raw(`alter table api_keys alter column client_ids set not null`);
  await knex.raw(
    `comment on column api_keys.client_ids is 'client allow-list: edits, deletes, ` +
      `evidence uploads and imports under a client need it here; empty = none'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table api_keys alter column client_ids drop not null');
  await knex.raw('alter table api_keys alter column client_ids drop default');
}
