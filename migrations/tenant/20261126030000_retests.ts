import type { Knex } from 'knex';

/**
 * Retests (issue 20):
 * - `reports.kind` (`report` or `retest`), `reports.round` (0 for a report, 1, 2, ... for the
 *   rounds of its retest), `reports.retest_of` (the round before) and
 *   `reports.original_report_id` (the original report). A retest read from a Markdown file may not
 *   know the reports it follows (null links).
 * - `retest_results`: one row per finding of a retest report, holding its result in that round
 *   (status, who set it, notes, per-asset statuses with the retest's evidence, the client's risk
 *   acceptance). It goes with the finding's attachment to the report (foreign key on
 *   `report_findings (report_id, finding_id)`, cascading), so detaching a finding removes it.
 * - `evidence_images.retest_result_id`: retest evidence images belong to a retest result; an
 *   image still has exactly one owner (finding, report tab or retest result).
 */
const ms = { useTz: true, precision: 3 } as const;

export async function up(knex: Knex): Promise<void> {
  await knex.raw("alter table reports add column kind text not null default 'report'");
  await knex.raw('alter table reports add column round integer not null default 0');
  await knex.raw('alter table reports add column retest_of uuid references reports(id) on delete set null');
  await knex.raw('alter table reports add column original_report_id uuid references reports(id) on delete set null');
  await knex.raw(
    'alter table reports add constraint reports_kind check ' +
      "((kind = 'report' and round = 0 and retest_of is null and original_report_id is null) or " +
      "(kind = 'retest' and round >= 1))",
  );
  await knex.raw('create index reports_original_report on reports (original_report_id, round)');
  await knex.raw('create index reports_retest_of on reports (retest_of)');

  await knex.schema.createTable('retest_results', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('report_id').notNullable();
    t.uuid('finding_id').notNullable();
    t.text('status').notNullable().defaultTo('not_retested');
    t.text('status_set_by').notNullable().defaultTo('assets');
    t.text('status_note').notNullable().defaultTo('');
    t.text('notes').notNullable().defaultTo('');
    t.date('retested_at');
    t.boolean('risk_accepted').notNullable().defaultTo(false);
    t.text('risk_accepted_note').notNullable().defaultTo('');
    // [{ host?, ip?, port?, protocol?, url?, parameter?, status, evidence }]
    t.jsonb('assets').notNullable().defaultTo('[]');
    t.timestamp('created_at', ms).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', ms).notNullable().defaultTo(knex.fn.now(3));
    t.uuid('created_by');
    t.unique(['report_id', 'finding_id']);
    t.index(['finding_id']);
    t.index(['report_id', 'status']);
    t.foreign(['report_id', 'finding_id'])
      .references(['report_id', 'finding_id'])
      .inTable('report_findings')
      .onDelete('CASCADE');
    t.check(
      "status in ('not_retested', 'resolved', 'partially_resolved', 'unresolved', 'new')",
      [],
      'retest_results_status',
    );
    t.check("status_set_by in ('assets', 'person')", [], 'retest_results_status_set_by');
  });

  await knex.raw(
    'alter table evidence_images add column retest_result_id uuid references retest_results(id) on delete cascade',
  );
  await knex.raw('create index evidence_images_retest_result on evidence_images (retest_result_id)');
  await knex.raw('alter table evidence_images drop constraint evidence_images_one_owner');
  await knex.raw(
    'alter table evidence_images add constraint evidence_images_one_owner check (' +
      '(finding_id is not null)::int + (report_tab_id is not null)::int + (retest_result_id is not null)::int = 1)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('delete from evidence_images where retest_result_id is not null');
  await knex.raw('alter table evidence_images drop constraint evidence_images_one_owner');
  await knex.raw(
    'alter table evidence_images add constraint evidence_images_one_owner check ' +
      '((finding_id is null) <> (report_tab_id is null))',
  );
  await knex.raw('alter table evidence_images drop column retest_result_id');
  await knex.schema.dropTable('retest_results');
  await knex.raw('alter table reports drop constraint reports_kind');
  await knex.raw(
    'alter table reports drop column original_report_id, drop column retest_of, drop column round, drop column kind',
  );
}
