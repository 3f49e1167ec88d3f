import type { Knex } from 'knex';

/**
 * `match_fallback` on finding templates: a generic template (missing patches, outdated software)
 * that loses to any more specific template. It is part of the template's content, so the content
 * hash reads it: templates unchanged since their import stay unchanged (their imported hash is
 * brought to the new hash), edited ones stay edited.
 */

const CONTENT: Array<[string, string]> = [
  ['title', 'text'],
  ['severity', 'text'],
  ['cvss', 'jsonb'],
  ['cves', 'text[]'],
  ['cwes', 'integer[]'],
  ['description', 'text'],
  ['impact', 'text'],
  ['remediation', 'text'],
  ['references', 'text[]'],
  ['scanner_rules', 'text[]'],
  ['match_cves', 'text[]'],
  ['match_cwes', 'integer[]'],
  ['title_patterns', 'jsonb'],
  ['language', 'text'],
  ['translations', 'jsonb'],
];

async function replaceContentHash(knex: Knex, columns: Array<[string, string]>): Promise<void> {
  await knex.raw('alter table finding_templates add column was_edited boolean');
  await knex.raw('update finding_templates set was_edited = edited');
  await knex.raw('alter table finding_templates drop column edited, drop column content_hash');
  await knex.raw('drop function finding_template_content_hash');
  const params = columns.map(([, type]) => type).join(', ');
  const args = columns.map((_, i) => `$${i + 1}`).join(', ');
  // Why immutable: see the library workspace migration (generated columns need it).
  await knex.raw(
    `create function finding_template_content_hash(${params}) returns text language sql immutable ` +
      `parallel safe as $$ select encode(sha256(convert_to(jsonb_build_array(${args})::text, 'UTF8')), 'hex') $$`,
  );
  const call = `finding_template_content_hash(${columns.map(([c]) => `"${c}"`).join(', ')})`;
  await knex.raw(`alter table finding_templates add column content_hash text generated always as (${call}) stored`);
  await knex.raw(
    `alter table finding_templates add column edited boolean generated always as ` +
      `(imported_hash is not null and imported_hash <> ${call}) stored`,
  );
  await knex.raw(
    'update finding_templates set imported_hash = content_hash where imported_hash is not null and not was_edited',
  );
  await knex.raw('alter table finding_templates drop column was_edited');
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table finding_templates add column match_fallback boolean not null default false');
  await replaceContentHash(knex, [...CONTENT, ['match_fallback', 'boolean']]);
}

export async function down(knex: Knex): Promise<void> {
  await replaceContentHash(knex, CONTENT);
  await knex.raw('alter table finding_templates drop column match_fallback');
}
