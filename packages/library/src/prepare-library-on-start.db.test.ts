import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKnex, DATABASE_NAMES, prepareDatabases, type DatabaseName } from '@service/db';
import { createTestDatabases, type TestDatabases } from '@service/db/testing';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareLibraryOnStart, requestGlobalsImport, type LibraryFileStore } from './index.ts';
import { sampleLibraryFiles, writeLibraryTree } from './testing/library-tree.ts';

let databases: TestDatabases;
let dbs: Record<DatabaseName, Knex>;
const trees: Array<{ remove(): void }> = [];
// Why no store: these libraries hold no Word template, so nothing is ever stored.
const files: LibraryFileStore = {
  put: async () => {
    throw new Error('nothing to store');
  },
  claim: async () => {},
  settle: async () => {},
};

beforeAll(async () => {
  databases = await createTestDatabases();
  dbs = Object.fromEntries(DATABASE_NAMES.map((n) => [n, createKnex(databases.urls[n], 5)])) as Record<
    DatabaseName,
    Knex
  >;
  await prepareDatabases(dbs, '0.1.0');
});

afterAll(async () => {
  for (const t of trees) t.remove();
  await Promise.all(DATABASE_NAMES.map((n) => dbs?.[n]?.destroy()));
  await databases?.drop();
});

function start(libraryFiles: Record<string, string | null>, cacheFile?: string) {
  const tree = writeLibraryTree(libraryFiles);
  trees.push(tree);
  return prepareLibraryOnStart({
    libraryDir: tree.dir,
    sharedDb: dbs.shared,
    tenantDb: dbs.tenant,
    controlPlane: dbs.controlPlane,
    files,
    cacheFile,
  });
}

describe('prepareLibraryOnStart', () => {
  const v1 = sampleLibraryFiles();
  const v2 = {
    ...v1,
    'narratives/glossary.md':
      '---\nkey: glossary\ntitle: Glossary\ncategory: glossary\n---\n\n**CVE.** A ' +
      'public identifier of a vulnerability.\n',
  };

  it('gives a new installation the full library at its first start, and does nothing at the next', async () => {
    const first = await start(v1);
    expect(first).toMatchObject({
      shared: { refreshed: true },
      importReason: 'new-workspace',
      imported: { total: { added: 8 } },
    });
    const second = await start(v1);
    expect(second).toMatchObject({ shared: { refreshed: false }, importReason: null, imported: null });
  });

  it('after an upgrade refreshes the shared copy but changes no workspace until an import is requested', async () => {
    const upgraded = await start(v2);
    expect(upgraded).toMatchObject({
      shared: { refreshed: true, diff: { added: [{ kind: 'narrative', key: 'glossary' }] } },
      importReason: null,
    });
    expect(await dbs.tenant('narratives').where({ global_key: 'glossary' }).first()).toBeUndefined();

    await requestGlobalsImport(dbs.controlPlane);
    const requested = await start(v2);
    expect(requested).toMatchObject({
      shared: { refreshed: false },
      importReason: 'requested',
      imported: { total: { added: 1, updated: 0, removed: 0 } },
    });
    expect(await dbs.tenant('narratives').where({ global_key: 'glossary' }).first('title')).toEqual({
      title: 'Glossary',
    });
    expect(await start(v2)).toMatchObject({ importReason: null });
  });

  it('with a start cache, skips an unchanged library and still sees new files and requested imports', async () => {
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'library-cache-'));
    const cacheFile = path.join(cacheDir, 'sub', 'cache.json');
    try {
      const first = await start(v1, cacheFile);
      expect(first).toMatchObject({ shared: { refreshed: true }, importReason: null });
      expect(JSON.parse(readFileSync(cacheFile, 'utf8'))).toMatchObject({ version: first.libraryVersion });
      const again = await start(v1, cacheFile);
      expect(again).toMatchObject({
        libraryVersion: first.libraryVersion,
        shared: { refreshed: false, version: first.libraryVersion },
        importReason: null,
        imported: null,
      });
      await requestGlobalsImport(dbs.controlPlane);
      expect(await start(v1, cacheFile)).toMatchObject({ importReason: 'requested' });
      const upgraded = await start(v2, cacheFile);
      expect(upgraded).toMatchObject({ shared: { refreshed: true } });
      expect(upgraded.libraryVersion).not.toBe(first.libraryVersion);
      writeFileSync(cacheFile, 'not json');
      expect(await start(v2, cacheFile)).toMatchObject({ libraryVersion: upgraded.libraryVersion, importReason: null });
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
