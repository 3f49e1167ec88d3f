import type { Knex } from 'knex';

const ms = { useTz: true, precision: 3 } as const;

/** created_at / updated_at at millisecond precision, so values read from the API compare exactly. */
function timestamps(t: Knex.CreateTableBuilder, knex: Knex): void {
  t.timestamp('created_at', ms).notNullable().defaultTo(knex.fn.now(3));
  t.timestamp('updated_at', ms).notNullable().defaultTo(knex.fn.now(3));
  t.uuid('created_by');
}

/** Rows that go to the trash instead of being deleted. */
function trashable(t: Knex.CreateTableBuilder): void {
  t.timestamp('deleted_at', ms);
  t.uuid('deleted_by');
}

/** A generated full-text column over the given expressions, with its GIN index. */
async function searchColumn(knex: Knex, table: string, expression: string): Promise<void> {
  await knex.raw(
    `alter table ?? add column search tsvector generated always as (to_tsvector('simple', ${expression})) stored`,
    [table],
  );
  await knex.raw(`create index ?? on ?? using gin (search)`, [`${table}_search`, table]);
}

export async function up(knex: Knex): Promise<void> {
  // Why: array_to_string is only stable, and generated columns need an immutable expression.
  await knex.raw(
    `create function search_text(text[]) returns text language sql immutable parallel ` +
      `safe as $$ select array_to_string($1, ' ') $$`,
  );
  await knex.schema.createTable('clients', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('short_name');
    t.text('description').notNullable().defaultTo('');
    t.text('website');
    t.jsonb('contacts').notNullable().defaultTo('[]');
    timestamps(t, knex);
    trashable(t);
  });
  await searchColumn(
    knex,
    'clients',
    "coalesce(name, '') || ' ' || coalesce(short_name, '') || ' ' || coalesce(description, '')",
  );

  await knex.schema.createTable('projects', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('client_id').notNullable().references('clients.id');
    t.text('name').notNullable();
    t.text('project_type');
    t.text('description').notNullable().defaultTo('');
    t.date('start_date');
    t.date('end_date');
    t.text('status').notNullable().defaultTo('active');
    timestamps(t, knex);
    trashable(t);
    t.index(['client_id', 'created_at']);
  });
  await searchColumn(
    knex,
    'projects',
    "coalesce(name, '') || ' ' || coalesce(description, '') || ' ' || coalesce(project_type, '')",
  );

  await knex.schema.createTable('report_templates', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.jsonb('tabs').notNullable().defaultTo('[]');
    t.text('global_key').unique();
    t.integer('global_revision');
    timestamps(t, knex);
  });

  await knex.schema.createTable('report_styles', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.jsonb('fonts').notNullable().defaultTo('{}');
    t.jsonb('colors').notNullable().defaultTo('{}');
    t.jsonb('severity_colors').notNullable().defaultTo('{}');
    t.jsonb('cover_page').notNullable().defaultTo('{}');
    t.text('header_text').notNullable().defaultTo('');
    t.text('footer_text').notNullable().defaultTo('');
    t.uuid('logo_image_id');
    t.text('global_key').unique();
    t.integer('global_revision');
    timestamps(t, knex);
  });
  await searchColumn(knex, 'report_styles', "coalesce(name, '') || ' ' || coalesce(description, '')");

  await knex.schema.createTable('reports', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('project_id').notNullable().references('projects.id');
    t.text('title').notNullable();
    t.text('status').notNullable().defaultTo('draft');
    t.text('language').notNullable().defaultTo('en');
    t.uuid('template_id').references('report_templates.id').onDelete('SET NULL');
    t.uuid('style_id').references('report_styles.id').onDelete('SET NULL');
    t.text('summary').notNullable().defaultTo('');
    timestamps(t, knex);
    trashable(t);
    t.index(['project_id', 'created_at']);
  });
  await searchColumn(knex, 'reports', "coalesce(title, '') || ' ' || coalesce(summary, '')");

  await knex.schema.createTable('report_tabs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('report_id').notNullable().references('reports.id').onDelete('CASCADE');
    t.text('title').notNullable();
    t.integer('position').notNullable().defaultTo(0);
    t.text('content').notNullable().defaultTo('');
    timestamps(t, knex);
    t.index(['report_id', 'position']);
  });
  await searchColumn(knex, 'report_tabs', "coalesce(title, '') || ' ' || coalesce(content, '')");

  await knex.schema.createTable('findings', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('project_id').notNullable().references('projects.id');
    t.text('title').notNullable();
    t.text('severity').notNullable();
    t.text('status').notNullable().defaultTo('open');
    t.jsonb('cvss').notNullable().defaultTo('[]');
    t.specificType('cves', 'text[]').notNullable().defaultTo('{}');
    t.specificType('cwes', 'integer[]').notNullable().defaultTo('{}');
    t.text('description').notNullable().defaultTo('');
    t.text('impact').notNullable().defaultTo('');
    t.text('remediation').notNullable().defaultTo('');
    t.specificType('references', 'text[]').notNullable().defaultTo('{}');
    t.jsonb('affected_assets').notNullable().defaultTo('[]');
    t.jsonb('source').notNullable().defaultTo('{"kind":"manual"}');
    // Scanner identity used to merge re-imports: "<scanner>:<groupKey>".
    t.text('scanner_key');
    timestamps(t, knex);
    t.index(['project_id', 'created_at']);
    t.index(['project_id', 'scanner_key']);
    t.check("severity in ('critical', 'high', 'medium', 'low', 'info')", [], 'findings_severity');
  });
  await searchColumn(
    knex,
    'findings',
    "coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || " +
      "coalesce(remediation, '') || ' ' || search_text(cves)",
  );

  await knex.schema.createTable('report_findings', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('report_id').notNullable().references('reports.id').onDelete('CASCADE');
    t.uuid('finding_id').notNullable().references('findings.id').onDelete('CASCADE');
    t.integer('position').notNullable().defaultTo(0);
    timestamps(t, knex);
    t.unique(['report_id', 'finding_id']);
    t.index(['finding_id']);
    t.index(['report_id', 'position']);
  });

  await knex.schema.createTable('report_links', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('report_id').notNullable().references('reports.id').onDelete('CASCADE');
    t.text('title').notNullable();
    t.text('url').notNullable();
    t.integer('position').notNullable().defaultTo(0);
    timestamps(t, knex);
    t.index(['report_id', 'position']);
  });
  await searchColumn(knex, 'report_links', "coalesce(title, '') || ' ' || coalesce(url, '')");

  await knex.schema.createTable('finding_templates', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('title').notNullable();
    t.text('severity').notNullable();
    t.jsonb('cvss').notNullable().defaultTo('[]');
    t.specificType('cves', 'text[]').notNullable().defaultTo('{}');
    t.specificType('cwes', 'integer[]').notNullable().defaultTo('{}');
    t.text('description').notNullable().defaultTo('');
    t.text('impact').notNullable().defaultTo('');
    t.text('remediation').notNullable().defaultTo('');
    t.specificType('references', 'text[]').notNullable().defaultTo('{}');
    // "<scanner>:<rule id>", e.g. "nessus:57608", "nuclei:git-config".
    t.specificType('scanner_rules', 'text[]').notNullable().defaultTo('{}');
    t.text('global_key').unique();
    t.integer('global_revision');
    timestamps(t, knex);
    t.check("severity in ('critical', 'high', 'medium', 'low', 'info')", [], 'finding_templates_severity');
  });
  await knex.raw('create index finding_templates_scanner_rules on finding_templates using gin (scanner_rules)');
  await knex.raw('create index finding_templates_cves on finding_templates using gin (cves)');
  await searchColumn(
    knex,
    'finding_templates',
    "coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || search_text(cves)",
  );

  await knex.schema.createTable('evidence_images', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('finding_id').references('findings.id').onDelete('CASCADE');
    t.uuid('report_tab_id').references('report_tabs.id').onDelete('CASCADE');
    t.text('file_name').notNullable();
    t.text('content_type').notNullable();
    t.integer('size').notNullable();
    t.text('sha256').notNullable();
    t.text('storage_key').notNullable().unique();
    t.text('caption').notNullable().defaultTo('');
    timestamps(t, knex);
    t.index(['finding_id']);
    t.index(['report_tab_id']);
    t.check('(finding_id is null) <> (report_tab_id is null)', [], 'evidence_images_one_owner');
  });
  await searchColumn(knex, 'evidence_images', "coalesce(file_name, '') || ' ' || coalesce(caption, '')");

  await knex.schema.createTable('grants', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable();
    t.text('resource_type').notNullable();
    t.uuid('resource_id').notNullable();
    t.text('access').notNullable();
    timestamps(t, knex);
    t.unique(['user_id', 'resource_type', 'resource_id']);
    t.index(['resource_type', 'resource_id']);
    t.check("resource_type in ('project', 'report')", [], 'grants_resource_type');
    t.check("access in ('view', 'edit')", [], 'grants_access');
  });

  await knex.schema.createTable('idempotency_records', (t) => {
    t.uuid('api_key_id').notNullable();
    t.text('key').notNullable();
    t.text('request_hash').notNullable();
    t.integer('status').notNullable();
    t.jsonb('headers').notNullable().defaultTo('{}');
    t.jsonb('body');
    t.timestamp('created_at', ms).notNullable().defaultTo(knex.fn.now(3));
    t.primary(['api_key_id', 'key']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'idempotency_records',
    'grants',
    'evidence_images',
    'finding_templates',
    'report_links',
    'report_findings',
    'findings',
    'report_tabs',
    'reports',
    'report_styles',
    'report_templates',
    'projects',
    'clients',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.raw('drop function if exists search_text(text[])');
}
