import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import {
  createKnex,
  DATABASE_NAMES,
  prepareDatabases,
  readInstallation,
  VersionGuardError,
  type DatabaseName,
} from './index.ts';
import { createTestDatabases, type TestDatabases } from './testing/index.ts';

let databases: TestDatabases;
let dbs: Record<DatabaseName, Knex>;

beforeAll(async () => {
  databases = await createTestDatabases();
  dbs = Object.fromEntries(DATABASE_NAMES.map((n) => [n, createKnex(databases.urls[n], 3)])) as Record<
    DatabaseName,
    Knex
  >;
});
afterAll(async () => {
  await Promise.all(DATABASE_NAMES.map((n) => dbs[n].destroy()));
  await databases.drop();
});

describe('prepareDatabases', () => {
  it('migrates all three databases and records the version with the schema heads', async () => {
    const heads = await prepareDatabases(dbs, '1.2.0');
    expect(heads.controlPlane).toMatch(/^\d{14}_/);
    expect(heads.shared).toMatch(/^\d{14}_/);
    const rec = await readInstallation(dbs.controlPlane);
    expect(rec).toMatchObject({ version: '1.2.0', previousVersion: null, schemaHeads: heads });
  });

  it('is idempotent and records the previous version on upgrade', async () => {
    await prepareDatabases(dbs, '1.2.0');
    await prepareDatabases(dbs, '1.3.0');
    expect(await readInstallation(dbs.controlPlane)).toMatchObject({ version: '1.3.0', previousVersion: '1.2.0' });
  });

  it('refuses an older version and changes nothing', async () => {
    await expect(prepareDatabases(dbs, '1.2.9')).rejects.toThrow(VersionGuardError);
    await expect(prepareDatabases(dbs, '1.2.9')).rejects.toThrow(
      /last used by version 1\.3\.0, newer than this service \(1\.2\.9\)/,
    );
    expect((await readInstallation(dbs.controlPlane))?.version).toBe('1.3.0');
  });
});
