import type { Knex } from 'knex';

/**
 * What a page of a report's findings needs to cost the same at any size:
 * - `report_finding_counts`: the number of findings attached to each report, kept by statement
 *   triggers on `report_findings` (one upsert per statement and report, so a bulk insert of 1,000
 *   rows is one update), so `X-Total-Count` is exact without counting 50,000 index entries per page.
 *   A report without a row has none. `report_findings.report_id` never changes (a trigger refuses
 *   it), so inserts and deletes are all the counts have to follow.
 * - the order index `(report_id, position)` also holds `finding_id`: a page in the report's order
 *   (position, then finding id) is read from the index alone, without a sort and, once vacuumed,
 *   without visiting the table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('report_finding_counts', (t) => {
    t.uuid('report_id').primary().references('reports.id').onDelete('CASCADE');
    t.integer('findings').notNullable();
  });
  await knex.raw(`
    create function report_findings_count() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        -- Why ordered: two statements adding to the same reports lock their counts in one order.
        insert into report_finding_counts (report_id, findings)
        select report_id, count(*) from counted_rows group by report_id order by report_id
        on conflict (report_id) do update set findings = report_finding_counts.findings + excluded.findings;
      else
        update report_finding_counts c set findings = c.findings - d.n
        from (select report_id, count(*) as n from counted_rows group by report_id) d
        where c.report_id = d.report_id;
      end if;
      return null;
    end $$`);
  await knex.raw(`
    create trigger report_findings_count_insert after insert on report_findings
    referencing new table as counted_rows for each statement execute function report_findings_count()`);
  await knex.raw(`
    create trigger report_findings_count_delete after delete on report_findings
    referencing old table as counted_rows for each statement execute function report_findings_count()`);
  await knex.raw(`
    create function report_findings_keep_report() returns trigger language plpgsql as $$
    begin
      raise exception 'a report finding cannot move to another report; detach it and attach it there';
    end $$`);
  await knex.raw(`
    create trigger report_findings_keep_report before update of report_id on report_findings
    for each row when (old.report_id is distinct from new.report_id) execute function report_findings_keep_report()`);
  await knex.raw(`
    insert into report_finding_counts (report_id, findings)
    select report_id, count(*) from report_findings group by report_id`);

  await knex.raw('create index report_findings_order on report_findings (report_id, position, finding_id)');
  await knex.raw('drop index report_findings_report_id_position_index');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('create index report_findings_report_id_position_index on report_findings (report_id, position)');
  await knex.raw('drop index report_findings_order');
  await knex.raw('drop trigger report_findings_keep_report on report_findings');
  await knex.raw('drop trigger report_findings_count_delete on report_findings');
  await knex.raw('drop trigger report_findings_count_insert on report_findings');
  await knex.raw('drop function report_findings_keep_report()');
  await knex.raw('drop function report_findings_count()');
  await knex.schema.dropTable('report_finding_counts');
}
