import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { createKnex, migrationConfig } from '@service/db';
import { createTestDatabases, type TestDatabases } from '@service/db/testing';
import { ORGANIZATION_SLUG, slugOfOrganizationName } from './organization-slug.ts';

const MIGRATION = '20261127000000_email_unique_per_organization';

describe('slugOfOrganizationName', () => {
  it('keeps lower-case letters and digits, joins the rest with one "-", and always gives a valid slug', () => {
    expect(slugOfOrganizationName('Acme Corp.')).toBe('acme-corp');
    expect(slugOfOrganizationName('  Müller & Söhne GmbH  ')).toBe('m-ller-s-hne-gmbh');
    expect(slugOfOrganizationName('日本の会社')).toBe('organization');
    expect(slugOfOrganizationName(`${'a'.repeat(39)}-b`)).toBe('a'.repeat(39));
    for (const name of ['Acme Corp.', '--x--', '日本', 'a'.repeat(300), 'R&D 2026'])
      expect(slugOfOrganizationName(name)).toMatch(ORGANIZATION_SLUG);
  });
});

describe(`control-plane migration ${MIGRATION}`, () => {
  let dbs: TestDatabases;
  let db: Knex;
  const config = migrationConfig('controlPlane');

  beforeAll(async () => {
    dbs = await createTestDatabases();
    db = createKnex(dbs.urls.controlPlane, 2, 'test:control-plane');
    // Up to the migration before this one, as an installation of the previous release has it.
    // Why strings: with a migration source, knex lists pending migrations as the source gives them (file names).
    const [, pending] = (await db.migrate.list(config)) as [unknown, string[]];
    const names = pending.map((file) => file.replace(/\.(ts|js)$/, ''));
    expect(names).toContain(MIGRATION);
    for (const name of names.slice(0, names.indexOf(MIGRATION))) await db.migrate.up({ ...config, name });
  });
  afterAll(async () => {
    await db?.destroy();
    await dbs?.drop();
  });

  it('derives a unique slug for each existing organization and makes e-mail addresses unique per organization', async () => {
    const insert = async (name: string, at: string) =>
      (
        await db('organizations')
          .insert({ name, created_at: at, tenant_database: `tenant_${name.length}_${at.slice(8, 10)}` })
          .returning<Array<{ id: string }>>('id')
      )[0]!.id;
    const workspace = await insert('Workspace', '2026-01-01T00:00:00Z');
    const acme = await insert('Acme Corp', '2026-01-02T00:00:00Z');
    const acmeAgain = await insert('ACME corp!', '2026-01-03T00:00:00Z');
    const foreign = await insert('日本', '2026-01-04T00:00:00Z');
    // Under the old rule: one address, one account in the whole service.
    await db('users').insert({ organization_id: acme, email: 'it@acme.example', name: 'IT', role: 'admin' });

    await db.migrate.up({ ...config, name: MIGRATION });

    const slugs = Object.fromEntries(
      (await db('organizations').select('id', 'slug')).map((r: { id: string; slug: string }) => [r.id, r.slug]),
    );
    expect(slugs).toEqual({
      [workspace]: 'workspace',
      [acme]: 'acme-corp',
      [acmeAgain]: `acme-corp-${acmeAgain.replace(/-/g, '').slice(0, 8)}`,
      [foreign]: 'organization',
    });
    // A row inserted without a slug (an operator's SQL) still gets a valid one.
    const unnamed = await insert('Later', '2026-01-05T00:00:00Z');
    expect((await db('organizations').where({ id: unnamed }).first('slug')).slug).toMatch(ORGANIZATION_SLUG);
    await db('organizations').where({ id: unnamed }).delete();

    // Another organization may now have the same address; the same organization may not.
    await db('users').insert({ organization_id: acmeAgain, email: 'IT@acme.example', name: 'IT', role: 'admin' });
    await expect(
      db('users').insert({ organization_id: acme, email: 'It@Acme.example', name: 'Twice', role: 'member' }),
    ).rejects.toMatchObject({ code: '23505', constraint: 'users_organization_email_unique' });
    await expect(db('organizations').update({ slug: 'Not A Slug' }).where({ id: foreign })).rejects.toMatchObject({
      constraint: 'organizations_slug_format',
    });
    await expect(db('organizations').update({ slug: 'workspace' }).where({ id: foreign })).rejects.toMatchObject({
      constraint: 'organizations_slug_unique',
    });

    // Down is refused while an address has accounts in two organizations, and works once it has not.
    await expect(db.migrate.down({ ...config, name: MIGRATION })).rejects.toThrow(/users_email_unique/);
    await db('users').where({ organization_id: acmeAgain }).delete();
    await db.migrate.down({ ...config, name: MIGRATION });
    expect(await db.schema.hasColumn('organizations', 'slug')).toBe(false);
  });
});
