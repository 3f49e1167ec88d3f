import type { Knex } from 'knex';

/**
 * `report_styles.evidence_mode`: how documents show scanner evidence of affected assets:
 * `excerpt` (what matters of each asset's evidence; the default, also for existing styles),
 * `full`, `appendix` (excerpts in the finding, the whole evidence in an appendix) or `none`.
 *
 * It is part of a style's content, so the content hash reads it: styles unchanged since their
 * library import stay unchanged (their imported hash is brought to the new hash), edited ones stay
 * edited, and a library update cannot overwrite a mode a user chose without saying so.
 */

const CONTENT: Array<[string, string]> = [
  ['name', 'text'],
  ['description', 'text'],
  ['fonts', 'jsonb'],
  ['colors', 'jsonb'],
  ['severity_colors', 'jsonb'],
  ['cover_page', 'jsonb'],
  ['header_text', 'text'],
  ['footer_text', 'text'],
  ['page_size', 'text'],
  ['logo_image_id', 'uuid'],
  ['template_sha256', 'text'],
];

async function replaceContentHash(knex: Knex, columns: Array<[string, string]>): Promise<void> {
  await knex.raw('alter table report_styles add column was_edited boolean');
  await knex.raw('update report_styles set was_edited = edited');
  await knex.raw('alter table report_styles drop column edited, drop column content_hash');
  await knex.raw('drop function report_style_content_hash');
  const params = columns.map(([, type]) => type).join(', ');
  const args = columns.map((_, i) => `$${i + 1}`).join(', ');
  // Why immutable: see the library workspace migration (generated columns need it).
  await knex.raw(
    `create function report_style_content_hash(${params}) returns text language sql immutable ` +
      `parallel safe as $$ select encode(sha256(convert_to(jsonb_build_array(${args})::text, 'UTF8')), 'hex') $$`,
  );
  const call = `report_style_content_hash(${columns.map(([c]) => `"${c}"`).join(', ')})`;
  await knex.raw(`alter table report_styles add column content_hash text generated always as (${call}) stored`);
  await knex.raw(
    `alter table report_styles add column edited boolean generated always as ` +
      `(imported_hash is not null and imported_hash <> ${call}) stored`,
  );
  await knex.raw(
    'update report_styles set imported_hash = content_hash where imported_hash is not null and not was_edited',
  );
  await knex.raw('alter table report_styles drop column was_edited');
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw("alter table report_styles add column evidence_mode text not null default 'excerpt'");
  await knex.raw(
    'alter table report_styles add constraint report_styles_evidence_mode ' +
      "check (evidence_mode in ('excerpt', 'full', 'appendix', 'none'))",
  );
  await replaceContentHash(knex, [...CONTENT, ['evidence_mode', 'text']]);
}

export async function down(knex: Knex): Promise<void> {
  await replaceContentHash(knex, CONTENT);
  await knex.raw('alter table report_styles drop constraint report_styles_evidence_mode');
  await knex.raw('alter table report_styles drop column evidence_mode');
}
