import type { Knex } from 'knex';

/**
 * A report's finding order and its retest rounds stay right under parallel requests (issue 27 item 6):
 * - `report_findings (report_id, position)` is unique, checked at the end of each statement
 *   (deferrable), so one statement may move rows past each other (a shift, a new order) but no
 *   statement can leave two findings on one position. Positions already duplicated by parallel
 *   creates are made dense first, in the order they had (position, then creation).
 * - a statement that removes findings from reports (a detach, a deleted finding) closes the gaps it
 *   leaves, in the trigger `report_findings_close_gaps`, so positions stay 0..n-1 whatever removed them.
 * - `reports.last_retest_round`: on an original report, the last round given to one of its retests.
 *   A new retest takes its round by incrementing it (`update ... returning`), one atomic statement
 *   rather than a read of the highest round, and `(original_report_id, round)` is unique, so two
 *   parallel retests of one original can never share a round. Retests that already share one are
 *   numbered again first, per original in the order they had (round, then creation).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    update report_findings rf set position = o.n - 1
      from (select id, row_number() over (partition by report_id order by position, created_at, id) as n
              from report_findings) o
     where rf.id = o.id and rf.position <> o.n - 1`);
  await knex.raw(
    'alter table report_findings add constraint report_findings_position unique (report_id, position) ' +
      'deferrable initially immediate',
  );
  await knex.raw(`
    create function report_findings_close_gaps() returns trigger language plpgsql as $$
    begin
      update report_findings rf set position = o.n - 1
        from (select id, row_number() over (partition by report_id order by position, id) as n
                from report_findings
               where report_id in (select distinct report_id from removed_rows)) o
       where rf.id = o.id and rf.position <> o.n - 1;
      return null;
    end $$`);
  await knex.raw(`
    create trigger report_findings_close_gaps after delete on report_findings
    referencing old table as removed_rows for each statement execute function report_findings_close_gaps()`);

  await knex.raw(`
    update reports r set round = o.n
      from (select id, row_number() over (partition by original_report_id order by round, created_at, id) as n
              from reports
             where kind = 'retest'
               and original_report_id in (select original_report_id from reports where kind = 'retest'
                                           group by original_report_id, round having count(*) > 1)) o
     where r.id = o.id and r.round <> o.n`);
  await knex.raw('alter table reports add column last_retest_round integer not null default 0');
  await knex.raw(`
    update reports o set last_retest_round = m.last
      from (select original_report_id, max(round) as last from reports
             where kind = 'retest' and original_report_id is not null group by original_report_id) m
     where o.id = m.original_report_id`);
  await knex.raw('drop index reports_original_report');
  await knex.raw('create unique index reports_original_round on reports (original_report_id, round)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index reports_original_round');
  await knex.raw('create index reports_original_report on reports (original_report_id, round)');
  await knex.raw('alter table reports drop column last_retest_round');
  await knex.raw('drop trigger report_findings_close_gaps on report_findings');
  await knex.raw('drop function report_findings_close_gaps()');
  await knex.raw('alter table report_findings drop constraint report_findings_position');
}
