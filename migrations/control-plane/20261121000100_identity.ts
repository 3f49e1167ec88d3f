import type { Knex } from 'knex';

const ms = { useTz: true, precision: 3 } as const;

/** Organizations, users, sign-in sessions, personal API keys and installed licences. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists citext');

  await knex.schema.createTable('organizations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    // Hosted plans; the REST API needs `business` or above. Self-hosted uses the licence instead.
    t.text('plan').notNullable().defaultTo('business');
    // Which tenant database holds this organization's workspace (hosted maps many; self-hosted has one).
    t.text('tenant_database').notNullable().defaultTo('default');
    t.timestamp('created_at', ms).notNullable().defaultTo(knex.fn.now(3));
    t.check("plan in ('free', 'team', 'business', 'enterprise')", [], 'organizations_plan');
  });

  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('organization_id').notNullable().references('organizations.id');
    t.specificType('email', 'citext').notNullable().unique();
    t.text('name').notNullable();
    t.text('role').notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.text('password_hash');
    t.timestamp('created_at', ms).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', ms).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('deactivated_at', ms);
    t.check("role in ('admin', 'member', 'viewer', 'external')", [], 'users_role');
    t.index(['organization_id']);
  });

  await knex.schema.createTable('sessions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id');
    t.binary('token_hash').notNullable().unique();
    t.timestamp('created_at', ms).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('last_seen_at', ms).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('expires_at', ms).notNullable();
    t.timestamp('revoked_at', ms);
    t.index(['user_id']);
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('organization_id').notNullable().references('organizations.id');
    t.uuid('user_id').notNullable().references('users.id');
    t.text('name').notNullable();
    t.text('scope').notNullable();
    t.text('prefix').notNullable();
    t.binary('key_hash').notNullable().unique();
    // null: every client; an array: only those clients (edits, deletes, uploads, imports).
    t.specificType('client_ids', 'uuid[]');
    t.timestamp('expires_at', ms).notNullable();
    t.timestamp('created_at', ms).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', ms).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('last_used_at', ms);
    t.timestamp('revoked_at', ms);
    t.uuid('revoked_by');
    t.check("scope in ('read-only', 'read-write')", [], 'api_keys_scope');
    t.index(['user_id']);
    t.index(['organization_id']);
  });

  await knex.schema.createTable('licenses', (t) => {
    t.uuid('id').primary();
    t.text('kind').notNullable();
    t.jsonb('license').notNullable();
    t.timestamp('installed_at', ms).notNullable().defaultTo(knex.fn.now(3));
    t.check("kind in ('evaluation', 'signed')", [], 'licenses_kind');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['licenses', 'api_keys', 'sessions', 'users', 'organizations'])
    await knex.schema.dropTableIfExists(table);
}
