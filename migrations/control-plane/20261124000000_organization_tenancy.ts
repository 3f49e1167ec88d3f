import type { Knex } from 'knex';

/**
 * Where each organization's tenant database lives and whether it is in service (packages/tenancy).
 * Existing organizations (self-hosted's one, or a hosted bootstrap) keep the configured tenant
 * database: server `default`, database `default`, active, provisioning completed. These defaults
 * also apply to organizations created by bootstrapOrganization, which names none of the columns.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table organizations
      add column tenant_server text not null default 'default',
      add column state text not null default 'active',
      add column state_cause text,
      add column state_reason text,
      add column state_changed_at timestamptz(3) not null default now(),
      add column provisioning_step text not null default 'completed',
      add column retained_at timestamptz(3),
      add constraint organizations_state check (state in ('provisioning', 'active', 'unavailable', 'retained')),
      add constraint organizations_state_cause check (state_cause in ('provisioning_failed', 'migration_failed', 'operator')),
      add constraint organizations_provisioning_step check (provisioning_step in ('recorded', 'database_created', 'migrated', 'library_loaded', 'administrator_created', 'completed')),
      add constraint organizations_retained_at check ((state = 'retained') = (retained_at is not null)),
      add constraint organizations_tenant_server_name check (tenant_server ~ '^[a-z][a-z0-9_-]{0,31}$'),
      add constraint organizations_tenant_database_name check (tenant_database ~ '^[a-z_][a-z0-9_]{0,62}$')`);
  // Why unique: two organizations on one tenant database would see each other's workspace.
  await knex.raw('create unique index organizations_tenant_location on organizations (tenant_server, tenant_database)');
  await knex.raw('create index organizations_state_idx on organizations (state)');
  await knex.raw(
    `comment on column organizations.tenant_server is 'name of the PostgreSQL server ` +
      `holding the tenant database (TENANT_SERVERS); default = the server of the ` +
      `configured tenant database'`,
  );
  await knex.raw(
    `comment on column organizations.tenant_database is 'database name on ` +
      `tenant_server; default (on server default) = the configured tenant database ` +
      `itself'`,
  );
  await knex.raw(
    `comment on column organizations.state is 'provisioning: being set up; active: in ` +
      `service; unavailable: kept out of service (state_cause says why); retained: ` +
      `deprovisioned, data kept, nobody signs in'`,
  );
  await knex.raw(
    `comment on column organizations.state_cause is 'why the organization is not ` +
      `active: provisioning_failed, migration_failed (cleared by the next successful ` +
      `migration) or operator (only an operator clears it)'`,
  );
  await knex.raw(
    `comment on column organizations.provisioning_step is 'last provisioning step ` +
      `completed; a new run resumes after it'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists organizations_state_idx');
  await knex.raw('drop index if exists organizations_tenant_location');
  await knex.raw(`
    alter table organizations
      drop column tenant_server,
      drop column state,
      drop column state_cause,
      drop column state_reason,
      drop column state_changed_at,
      drop column provisioning_step,
      drop column retained_at,
      drop constraint if exists organizations_tenant_database_name`);
}
