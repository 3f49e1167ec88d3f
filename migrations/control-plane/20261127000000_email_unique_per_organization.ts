import type { Knex } from 'knex';

/**
 * Hosted privacy: an e-mail address is unique within its organization, not across the service, so
 * creating a user answers the same whether or not the address has an account in another
 * organization. Sign-in then names the organization by its slug (`organizations.slug`), which this
 * migration adds and derives from each existing name: lower-case letters and digits, other runs of
 * characters become `-`, at most 40 characters; a name that leaves nothing becomes `organization`,
 * and a slug another organization already has gets the first 8 hex digits of the id appended.
 * Self-hosted's one organization ("Workspace") becomes `workspace`.
 */
export async function up(knex: Knex): Promise<void> {
  // Why no "?" in the patterns below: knex.raw reads it as a placeholder.
  await knex.raw('alter table organizations add column slug text');
  await knex.raw(`
    update organizations set slug = coalesce(
      nullif(trim(both '-' from left(regexp_replace(lower(name), '[^a-z0-9]+', '-', 'g'), 40)), ''),
      'organization')`);
  await knex.raw(`
    update organizations o set slug = o.slug || '-' || left(replace(o.id::text, '-', ''), 8)
      from (select id, row_number() over (partition by slug order by created_at, id) as n from organizations) d
     where d.id = o.id and d.n > 1`);
  await knex.raw(`
    alter table organizations
      alter column slug set not null,
      alter column slug set default 'organization-' || left(md5(gen_random_uuid()::text), 12),
      add constraint organizations_slug_format check (slug ~ '^[a-z0-9]$|^[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$'),
      add constraint organizations_slug_unique unique (slug)`);
  // Why a default: a row inserted without a slug (an operator's SQL, a test) still gets a valid,
  // unique one; the service always names it (bootstrap: `workspace`, provisioning: from the name).
  await knex.raw(
    `comment on column organizations.slug is 'short name users sign in with (hosted: ` +
      `the sign-in request names the organization by it); unique'`,
  );

  // Why per organization: a service-wide unique address made creating a user answer 409 when the
  // address had an account in another organization, which told that organization's administrator so.
  await knex.raw('alter table users drop constraint users_email_unique');
  await knex.raw('alter table users add constraint users_organization_email_unique unique (organization_id, email)');
}

export async function down(knex: Knex): Promise<void> {
  // Fails while one address has accounts in two organizations: remove one of them first.
  await knex.raw('alter table users drop constraint users_organization_email_unique');
  await knex.raw('alter table users add constraint users_email_unique unique (email)');
  await knex.raw('alter table organizations drop column slug');
}
