import type { Knex } from 'knex';

/** `findings.details`: what a scanner reported beyond the description (a compliance audit's table of checks). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw("alter table findings add column details text not null default ''");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table findings drop column details');
}
