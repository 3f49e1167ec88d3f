import type { Knex } from 'knex';

/**
 * What a report needs to read as a client reads it:
 * - `reports.finding_order`: `severity` (findings worst first, kept so after every change) or
 *   `manual` (the order a person set). Reports made before keep the order they have (`manual`);
 *   new reports start in severity order.
 * - `report_tabs.placement`: a tab comes `before` the findings (summary, scope) or `after`
 *   them (appendices).
 * - `evidence_images.position`: the order of a finding's or tab's images, so documents show
 *   them in an order that survives export and import (images of one instant had none).
 * - `findings.severity_reason`: why a person rated a finding otherwise than its CVSS band.
 * - `findings.scanner_keys`: every scanner rule merged into a finding (several rules of one
 *   template become one finding), so re-imports of any of them merge into it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw("alter table reports add column finding_order text not null default 'manual'");
  await knex.raw("alter table reports alter column finding_order set default 'severity'");
  await knex.raw(
    "alter table reports add constraint reports_finding_order check (finding_order in ('severity', 'manual'))",
  );
  await knex.raw("alter table report_tabs add column placement text not null default 'before'");
  await knex.raw(
    "alter table report_tabs add constraint report_tabs_placement check (placement in ('before', 'after'))",
  );
  await knex.raw('alter table evidence_images add column position integer not null default 0');
  // Why: the order images of one owner were shown in until now (creation, then id) becomes explicit.
  await knex.raw(`
    update evidence_images e set position = o.n from (
      select id, row_number() over (partition by coalesce(finding_id, report_tab_id) order by created_at, id) - 1 as n
        from evidence_images) o
     where e.id = o.id`);
  await knex.raw("alter table findings add column severity_reason text not null default ''");
  await knex.raw("alter table findings add column scanner_keys text[] not null default '{}'");
  await knex.raw('update findings set scanner_keys = array[scanner_key] where scanner_key is not null');
  await knex.raw('create index findings_scanner_keys on findings using gin (scanner_keys)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index findings_scanner_keys');
  await knex.raw('alter table findings drop column scanner_keys, drop column severity_reason');
  await knex.raw('alter table evidence_images drop column position');
  await knex.raw('alter table report_tabs drop column placement');
  await knex.raw('alter table reports drop column finding_order');
}
