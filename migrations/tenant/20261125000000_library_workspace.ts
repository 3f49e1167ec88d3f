import type { Knex } from 'knex';

/**
 * The workspace copy of the global library: the three new kinds (narratives, scoping templates,
 * project types), what finding templates, styles and report templates need to hold a library
 * item, and on every library table:
 *
 * - `global_key` (items a user made have none) and `global_revision` (text: a content digest);
 * - `imported_hash`: the content hash taken when the item was imported;
 * - `content_hash` and `edited`, generated from the content columns, so "edited by a user since
 *   import" is `edited` on any read, whoever changed the row and however;
 * - `global_removed_at`: the release no longer ships the item (it is kept, never deleted).
 */

const ms = { useTz: true, precision: 3 } as const;

/** Content columns of each library table, in the order the hash reads them. */
const CONTENT: Record<string, { hashFunction: string; columns: Array<[string, string]> }> = {
  finding_templates: {
    hashFunction: 'finding_template_content_hash',
    columns: [
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
    ],
  },
  report_styles: {
    hashFunction: 'report_style_content_hash',
    columns: [
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
    ],
  },
  report_templates: {
    hashFunction: 'report_template_content_hash',
    columns: [
      ['name', 'text'],
      ['description', 'text'],
      ['tabs', 'jsonb'],
      ['language', 'text'],
      ['style_id', 'uuid'],
    ],
  },
  narratives: {
    hashFunction: 'narrative_content_hash',
    columns: [
      ['title', 'text'],
      ['category', 'text'],
      ['description', 'text'],
      ['content', 'text'],
      ['language', 'text'],
    ],
  },
  scoping_templates: {
    hashFunction: 'scoping_template_content_hash',
    columns: [
      ['name', 'text'],
      ['description', 'text'],
      ['sections', 'jsonb'],
      ['language', 'text'],
    ],
  },
  project_types: {
    hashFunction: 'project_type_content_hash',
    columns: [
      ['name', 'text'],
      ['description', 'text'],
      ['language', 'text'],
      ['report_template_id', 'uuid'],
      ['retest_report_template_id', 'uuid'],
      ['scoping_template_id', 'uuid'],
      ['estimated_days_min', 'integer'],
      ['estimated_days_max', 'integer'],
      ['standards', 'text[]'],
      ['checklist', 'text[]'],
    ],
  },
};

function timestamps(t: Knex.CreateTableBuilder, knex: Knex): void {
  t.timestamp('created_at', ms).notNullable().defaultTo(knex.fn.now(3));
  t.timestamp('updated_at', ms).notNullable().defaultTo(knex.fn.now(3));
  t.uuid('created_by');
}

async function searchColumn(knex: Knex, table: string, expression: string): Promise<void> {
  await knex.raw(
    `alter table ?? add column search tsvector generated always as (to_tsvector('simple', ${expression})) stored`,
    [table],
  );
  await knex.raw(`create index ?? on ?? using gin (search)`, [`${table}_search`, table]);
}

/** The hash function of a table and its generated `content_hash` and `edited` columns. */
async function addContentHash(knex: Knex, table: string): Promise<void> {
  const { hashFunction, columns } = CONTENT[table]!;
  const params = columns.map(([, type]) => type).join(', ');
  const args = columns.map((_, i) => `$${i + 1}`).join(', ');
  // Why immutable: generated columns need an immutable expression, and jsonb_build_array and
  // convert_to are only marked stable (they could depend on settings for other types). For the
  // text, jsonb, array and uuid arguments here the result depends on the values alone.
  await knex.raw(
    `create function ${hashFunction}(${params}) returns text language sql immutable ` +
      `parallel safe as $$ select ` +
      `encode(sha256(convert_to(jsonb_build_array(${args})::text, 'UTF8')), 'hex') $$`,
  );
  const call = `${hashFunction}(${columns.map(([c]) => `"${c}"`).join(', ')})`;
  await knex.raw(`alter table ?? add column content_hash text generated always as (${call}) stored`, [table]);
  await knex.raw(
    `alter table ?? add column edited boolean generated always as (imported_hash is ` +
      `not null and imported_hash <> ${call}) stored`,
    [table],
  );
}

/** Columns every library table has beyond its content: origin, revision, import hash, removal mark. */
function libraryColumns(t: Knex.CreateTableBuilder | Knex.AlterTableBuilder, isNew: boolean): void {
  if (isNew) {
    t.text('global_key').unique();
    t.text('global_revision');
  }
  t.text('imported_hash');
  t.timestamp('global_removed_at', ms);
}

export async function up(knex: Knex): Promise<void> {
  for (const table of ['finding_templates', 'report_styles', 'report_templates']) {
    await knex.raw('alter table ?? alter column global_revision type text using global_revision::text', [table]);
  }

  await knex.schema.alterTable('finding_templates', (t) => {
    t.text('language').notNullable().defaultTo('en');
    // What the template matches besides `scanner_rules`: CVEs and CWEs (opt-in), per-scanner title patterns.
    t.specificType('match_cves', 'text[]').notNullable().defaultTo('{}');
    t.specificType('match_cwes', 'integer[]').notNullable().defaultTo('{}');
    t.jsonb('title_patterns').notNullable().defaultTo('{}');
    // By language: { "de": { "title": ..., "description": ..., "impact": ..., "remediation": ... } }.
    t.jsonb('translations').notNullable().defaultTo('{}');
    libraryColumns(t, false);
  });
  await knex.raw('create index finding_templates_match_cves on finding_templates using gin (match_cves)');

  await knex.schema.alterTable('report_styles', (t) => {
    t.text('page_size').notNullable().defaultTo('A4');
    // The customer's Word template the DOCX export fills instead of our own layout (null: our layout).
    t.text('template_file_name');
    t.text('template_storage_key');
    t.text('template_sha256');
    t.integer('template_size');
    libraryColumns(t, false);
    t.check("page_size in ('A4', 'Letter')", [], 'report_styles_page_size');
    t.check('(template_storage_key is null) = (template_sha256 is null)', [], 'report_styles_template_complete');
  });

  await knex.schema.alterTable('report_templates', (t) => {
    t.text('language').notNullable().defaultTo('en');
    // The style reports made from this template start with.
    t.uuid('style_id').references('report_styles.id').onDelete('SET NULL');
    libraryColumns(t, false);
  });

  await knex.schema.createTable('narratives', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('title').notNullable();
    t.text('category').notNullable().defaultTo('other');
    t.text('description').notNullable().defaultTo('');
    t.text('content').notNullable().defaultTo('');
    t.text('language').notNullable().defaultTo('en');
    libraryColumns(t, true);
    timestamps(t, knex);
  });
  await searchColumn(
    knex,
    'narratives',
    "coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || coalesce(content, '')",
  );

  await knex.schema.createTable('scoping_templates', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    // [{ title, description?, questions: [{ id, text, type, help?, required, options? }] }]
    t.jsonb('sections').notNullable().defaultTo('[]');
    t.text('language').notNullable().defaultTo('en');
    libraryColumns(t, true);
    timestamps(t, knex);
  });
  await searchColumn(knex, 'scoping_templates', "coalesce(name, '') || ' ' || coalesce(description, '')");

  await knex.schema.createTable('project_types', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.text('language').notNullable().defaultTo('en');
    t.uuid('report_template_id').references('report_templates.id').onDelete('SET NULL');
    t.uuid('retest_report_template_id').references('report_templates.id').onDelete('SET NULL');
    t.uuid('scoping_template_id').references('scoping_templates.id').onDelete('SET NULL');
    t.integer('estimated_days_min');
    t.integer('estimated_days_max');
    t.specificType('standards', 'text[]').notNullable().defaultTo('{}');
    t.specificType('checklist', 'text[]').notNullable().defaultTo('{}');
    libraryColumns(t, true);
    timestamps(t, knex);
  });
  await searchColumn(knex, 'project_types', "coalesce(name, '') || ' ' || coalesce(description, '')");

  for (const table of Object.keys(CONTENT)) await addContentHash(knex, table);

  // The last import of the global library into this workspace: a workspace without a row has
  // never imported, so start-up gives it the full library.
  await knex.schema.createTable('library_import', (t) => {
    t.smallint('id').primary().defaultTo(1);
    t.text('library_version').notNullable();
    t.jsonb('counts').notNullable().defaultTo('{}');
    t.timestamp('imported_at', ms).notNullable().defaultTo(knex.fn.now(3));
    t.check('id = 1', [], 'library_import_single_row');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('library_import');
  for (const table of ['project_types', 'scoping_templates', 'narratives']) await knex.schema.dropTableIfExists(table);
  for (const table of ['finding_templates', 'report_styles', 'report_templates']) {
    await knex.raw('alter table ?? drop column if exists edited, drop column if exists content_hash', [table]);
  }
  for (const { hashFunction } of Object.values(CONTENT)) await knex.raw(`drop function if exists ${hashFunction}`);
  await knex.schema.alterTable('report_templates', (t) => {
    t.dropColumns('language', 'style_id', 'imported_hash', 'global_removed_at');
  });
  await knex.schema.alterTable('report_styles', (t) => {
    t.dropChecks(['report_styles_page_size', 'report_styles_template_complete']);
    t.dropColumns(
      'page_size',
      'template_file_name',
      'template_storage_key',
      'template_sha256',
      'template_size',
      'imported_hash',
      'global_removed_at',
    );
  });
  await knex.raw('drop index if exists finding_templates_match_cves');
  await knex.schema.alterTable('finding_templates', (t) => {
    t.dropColumns(
      'language',
      'match_cves',
      'match_cwes',
      'title_patterns',
      'translations',
      'imported_hash',
      'global_removed_at',
    );
  });
  for (const table of ['finding_templates', 'report_styles', 'report_templates']) {
    // Why null: a text revision (a digest) has no integer form.
    await knex.raw('alter table ?? alter column global_revision type integer using null', [table]);
  }
}
