import type { Knex } from 'knex';

/**
 * A report's document control (issue 28, item 3): who prepared it (`prepared_by`, the testing
 * company), its authors, reviewers and distribution list (jsonb lists of people) and its version
 * history (jsonb list of versions). Existing reports have none of them; documents flag the report
 * variables that need them until they are set.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table reports
      add column prepared_by text not null default '',
      add column authors jsonb not null default '[]',
      add column reviewers jsonb not null default '[]',
      add column distribution jsonb not null default '[]',
      add column version_history jsonb not null default '[]'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table reports
      drop column version_history,
      drop column distribution,
      drop column reviewers,
      drop column authors,
      drop column prepared_by`);
}
