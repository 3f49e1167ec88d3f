import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { generateLicenseKeyPair, parseSigningKey, signLicense } from '@service/auth';
import { createKnex, DATABASE_NAMES, prepareDatabases, type DatabaseName } from '@service/db';
import { createTestDatabases, type TestDatabases } from '@service/db/testing';
import { LicenseLoadError, loadLicense } from './load-license.ts';

let databases: TestDatabases;
let dbs: Record<DatabaseName, Knex>;
beforeAll(async () => {
  databases = await createTestDatabases();
  dbs = Object.fromEntries(DATABASE_NAMES.map((n) => [n, createKnex(databases.urls[n], 2)])) as Record<
    DatabaseName,
    Knex
  >;
  await prepareDatabases(dbs, '0.1.0');
});
afterAll(async () => {
  await Promise.all(DATABASE_NAMES.map((n) => dbs[n].destroy()));
  await databases.drop();
});

describe('loadLicense', () => {
  it('never issues an evaluation licence with real database URLs', async () => {
    expect(
      await loadLicense({ licenseFile: null, trustedKeys: [], embedded: false, controlPlane: dbs.controlPlane }),
    ).toBeNull();
  });

  it('issues the evaluation licence once on the embedded database, so restarts do not extend it', async () => {
    const first = await loadLicense({
      licenseFile: null,
      trustedKeys: [],
      embedded: true,
      controlPlane: dbs.controlPlane,
      now: new Date('2026-01-01T00:00:00Z'),
    });
    expect(first).toMatchObject({ kind: 'evaluation', expiresAt: '2026-01-31T00:00:00.000Z', expired: false });
    const later = await loadLicense({
      licenseFile: null,
      trustedKeys: [],
      embedded: true,
      controlPlane: dbs.controlPlane,
      now: new Date('2026-02-15T00:00:00Z'),
    });
    expect(later).toMatchObject({
      kind: 'evaluation',
      id: first!.id,
      expiresAt: '2026-01-31T00:00:00.000Z',
      expired: true,
    });
  });

  it('reads a signed licence file verified against a configured trusted key, and refuses a tampered one', async () => {
    const pair = generateLicenseKeyPair();
    const dir = mkdtempSync(path.join(tmpdir(), 'licence-'));
    const file = path.join(dir, 'acme.license');
    const text = signLicense(
      {
        id: '6a1d3c1e-8b2b-4c1a-9f1e-1a2b3c4d5e6f',
        holder: 'Acme Ltd',
        edition: 'self-hosted',
        features: ['api'],
        seats: 10,
        issuedAt: '2026-01-01T00:00:00.000Z',
        expiresAt: '2099-01-01T00:00:00.000Z',
      },
      parseSigningKey(pair.privateKeyPem),
    );
    writeFileSync(file, text);
    const license = await loadLicense({
      licenseFile: file,
      trustedKeys: [pair.publicKeyBase64],
      embedded: true,
      controlPlane: dbs.controlPlane,
    });
    expect(license).toMatchObject({ kind: 'signed', holder: 'Acme Ltd', features: ['api'] });
    await expect(
      loadLicense({ licenseFile: file, trustedKeys: [], embedded: false, controlPlane: dbs.controlPlane }),
    ).rejects.toThrow(LicenseLoadError);
    await expect(
      loadLicense({
        licenseFile: path.join(dir, 'missing'),
        trustedKeys: [],
        embedded: false,
        controlPlane: dbs.controlPlane,
      }),
    ).rejects.toThrow(/Cannot read the licence file/);
  });
});
