import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKnex, DATABASE_NAMES, prepareDatabases, type DatabaseName } from '@service/db';
import { LocalObjectStore, StoredFiles } from '@service/storage';
import { createTestDatabases, type TestDatabases } from '@service/db/testing';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTemplateMatchIndex,
  FINDING_TEMPLATE_MATCH_COLUMNS,
  importGlobals,
  lastGlobalsImport,
  loadLibrary,
  loadSharedLibrary,
  matchableTemplateOfRow,
  matchTemplates,
  pendingGlobalsImportRequest,
  refreshSharedLibrary,
  requestGlobalsImport,
  takeGlobalsImportRequest,
  workspaceHasLibrary,
  type FindingTemplateMatchRow,
  type Library,
  type LibraryFileStore,
} from './index.ts';
import { sampleLibraryFiles, writeLibraryTree } from './testing/library-tree.ts';
import { wordTemplateVariant } from './testing/word-template.ts';

let databases: TestDatabases;
let dbs: Record<DatabaseName, Knex>;
/** A second handle on the shared database: another service process starting at the same time. */
let otherProcess: Knex;

/** A valid Word template whose bytes differ per marker. */
const docxCache = new Map<string, Uint8Array>();
const fakeDocx = (marker: string) => {
  if (!docxCache.has(marker)) docxCache.set(marker, wordTemplateVariant({ '>{title}<': `>{title} ${marker}<` }));
  return docxCache.get(marker)!;
};

const ORGANIZATION = '0f0e0d0c-0b0a-4908-8706-050403020100';
const filesDir = mkdtempSync(path.join(tmpdir(), 'library-files-'));

/** The workspace's files in a real store (a directory), counting what the import stores. */
function storedFiles(): LibraryFileStore & {
  puts: number;
  read(key: string): Promise<Buffer>;
  exists(key: string): Promise<boolean>;
} {
  const store = new LocalObjectStore(filesDir);
  const files = () =>
    new StoredFiles(store, [
      {
        table: 'report_styles',
        column: 'template_storage_key',
        sha256Column: 'template_sha256',
        sizeColumn: 'template_size',
      },
    ]).of(ORGANIZATION, dbs.tenant);
  const counted = {
    puts: 0,
    async put(bytes: Uint8Array) {
      counted.puts++;
      return (await files().write('templates', bytes, bytes.length)).key;
    },
    claim: (trx: Knex.Transaction, keys: readonly string[]) => files().claim(trx, keys),
    settle: (keys: readonly string[]) => files().settle(keys),
    read: (key: string) => files().readBytes(key),
    exists: async (key: string) => (await store.head(key)) !== null,
  };
  return counted;
}

const base = sampleLibraryFiles();
const withStyleTemplate = (docx: Uint8Array) => ({
  ...base,
  'report-styles/plain.yaml': `${base['report-styles/plain.yaml']}wordTemplate: customer.docx\n`,
  'report-styles/customer.docx': docx,
});

async function libraryOf(files: Record<string, string | Uint8Array | null>): Promise<Library> {
  const tree = writeLibraryTree(files);
  try {
    return await loadLibrary(tree.dir);
  } finally {
    tree.remove();
  }
}

/**
 * Version 1 of the library, and version 2: one template changed, one narrative and one template new, one project type
 * gone.
 */
let v1: Library;
let v2: Library;

beforeAll(async () => {
  databases = await createTestDatabases();
  dbs = Object.fromEntries(DATABASE_NAMES.map((n) => [n, createKnex(databases.urls[n], 5)])) as Record<
    DatabaseName,
    Knex
  >;
  otherProcess = createKnex(databases.urls.shared, 5, 'service-second-process');
  await prepareDatabases(dbs, '0.1.0');
  v1 = await libraryOf(withStyleTemplate(fakeDocx('v1')));
  v2 = await libraryOf({
    ...withStyleTemplate(fakeDocx('v1')),
    'finding-templates/outdated-php.md': base['finding-templates/outdated-php.md']!.replace(
      'Upgrade PHP to a supported release.',
      'Upgrade PHP to a release that still receives security fixes.',
    ),
    'finding-templates/telnet-enabled.md': base['finding-templates/smb-signing-disabled.md']!.replace(
      'key: smb-signing-disabled',
      'key: telnet-enabled',
    )
      .replace('nessus: [57608]', 'nessus: [10281]')
      .replace('"open-port:445/tcp"', '"open-port:23/tcp"')
      .replace('# SMB signing not required', '# Telnet service enabled'),
    'narratives/glossary.md':
      '---\nkey: glossary\ntitle: Glossary\ncategory: glossary\n---\n\n**CVE.** A ' +
      'public identifier of a vulnerability.\n',
    'project-types/web-test.yaml': null,
  });
});

afterAll(() => rmSync(filesDir, { recursive: true, force: true }));
afterAll(async () => {
  await Promise.all([...DATABASE_NAMES.map((n) => dbs?.[n]?.destroy()), otherProcess?.destroy()]);
  await databases?.drop();
});

describe('refreshSharedLibrary', () => {
  it('loads the library once, even when two processes start at the same time, and reads it back whole', async () => {
    const results = await Promise.all([refreshSharedLibrary(dbs.shared, v1), refreshSharedLibrary(otherProcess, v1)]);
    expect(results.map((r) => r.refreshed).sort()).toEqual([false, true]);
    expect(results.find((r) => r.refreshed)!.diff.added).toHaveLength(v1.items.length);
    expect(await refreshSharedLibrary(dbs.shared, v1)).toMatchObject({ refreshed: false, previousVersion: v1.version });
    expect(await loadSharedLibrary(dbs.shared)).toEqual(v1);
    expect(await dbs.shared('library_release').first('library_version', 'item_count')).toEqual({
      library_version: v1.version,
      item_count: v1.items.length,
    });
  });

  it('replaces the copy when the release ships another version, and says what changed', async () => {
    const result = await refreshSharedLibrary(dbs.shared, v2);
    expect(result).toMatchObject({ refreshed: true, previousVersion: v1.version, version: v2.version });
    expect(result.diff.added.map((c) => c.key)).toEqual(['glossary', 'telnet-enabled']);
    expect(result.diff.updated.map((c) => c.key)).toEqual(['outdated-php']);
    expect(result.diff.removed.map((c) => `${c.kind}:${c.key}`)).toEqual(['project-type:web-test']);
    expect(await loadSharedLibrary(dbs.shared)).toEqual(v2);
    await refreshSharedLibrary(dbs.shared, v1);
  });
});

describe('importGlobals', () => {
  const files = storedFiles();

  it('gives a brand-new workspace the full library', async () => {
    expect(await workspaceHasLibrary(dbs.tenant)).toBe(false);
    const result = await importGlobals(dbs.tenant, await loadSharedLibrary(dbs.shared), { files });
    expect(result.total).toEqual({ added: v1.items.length, updated: 0, unchanged: 0, removed: 0, overwrittenEdits: 0 });
    expect(result.byKind['finding-template']).toMatchObject({ added: 2 });
    expect(await workspaceHasLibrary(dbs.tenant)).toBe(true);
    expect(await lastGlobalsImport(dbs.tenant)).toMatchObject({ libraryVersion: v1.version, counts: result.total });

    const smb = await dbs.tenant('finding_templates').where({ global_key: 'smb-signing-disabled' }).first();
    expect(smb).toMatchObject({
      title: 'SMB signing not required',
      severity: 'medium',
      scanner_rules: ['nessus:57608', 'nmap:open-port:445/tcp'],
      language: 'en',
      translations: {
        de: { title: 'SMB-Signierung nicht erzwungen', description: 'Der Server erzwingt keine SMB-Signierung.' },
      },
      global_revision: v1.items.find((i) => i.key === 'smb-signing-disabled')!.revision,
      edited: false,
      global_removed_at: null,
    });
    const style = await dbs.tenant('report_styles').where({ global_key: 'plain' }).first();
    expect(style).toMatchObject({
      name: 'Plain',
      page_size: 'A4',
      template_file_name: 'customer.docx',
      template_size: fakeDocx('v1').length,
    });
    expect(style.template_storage_key).toMatch(new RegExp(`^org/${ORGANIZATION}/templates/`));
    expect(new Uint8Array(await files.read(style.template_storage_key))).toEqual(fakeDocx('v1'));
    expect(await dbs.tenant('unclaimed_objects').pluck('key')).toEqual([]);
    const template = await dbs.tenant('report_templates').where({ global_key: 'pentest-report' }).first();
    expect(template.style_id).toBe(style.id);
    expect(template.tabs[0]).toEqual({
      title: 'Scope',
      content: 'The assessment covered the systems listed below.',
      placement: 'before',
    });
    const projectType = await dbs.tenant('project_types').where({ global_key: 'web-test' }).first();
    expect(projectType).toMatchObject({
      report_template_id: template.id,
      estimated_days_min: 3,
      estimated_days_max: 10,
      standards: ['OWASP WSTG'],
    });
  });

  it('changes nothing when run again', async () => {
    const before = await dbs.tenant('finding_templates').orderBy('id').select('id', 'updated_at');
    const result = await importGlobals(dbs.tenant, await loadSharedLibrary(dbs.shared), { files });
    expect(result.total).toEqual({ added: 0, updated: 0, unchanged: v1.items.length, removed: 0, overwrittenEdits: 0 });
    expect(result.changes).toEqual([]);
    expect(await dbs.tenant('finding_templates').orderBy('id').select('id', 'updated_at')).toEqual(before);
    expect(files.puts).toBe(1);
  });

  it(
    'overwrites a user edit, keeps the user own item, adds new items and marks ' + 'removed ones (dry run first)',
    async () => {
      await dbs
        .tenant('finding_templates')
        .where({ global_key: 'smb-signing-disabled' })
        .update({ description: 'Our own words.' });
      await dbs
        .tenant('finding_templates')
        .insert({ title: 'Our own template', severity: 'low', scanner_rules: ['nessus:57608'], description: 'Mine.' });
      expect(
        await dbs.tenant('finding_templates').where({ global_key: 'smb-signing-disabled' }).first('edited'),
      ).toEqual({ edited: true });
      await refreshSharedLibrary(dbs.shared, v2);
      const shared = await loadSharedLibrary(dbs.shared);

      const snapshot = async () =>
        Promise.all(
          ['finding_templates', 'narratives', 'project_types', 'report_styles', 'library_import'].map((t) =>
            dbs
              .tenant(t)
              .orderBy(t === 'library_import' ? 'id' : 'id')
              .select(),
          ),
        );
      const before = await snapshot();
      const dry = await importGlobals(dbs.tenant, shared, { dryRun: true });
      expect(await snapshot()).toEqual(before);

      const result = await importGlobals(dbs.tenant, shared, { files });
      const { dryRun: _d, ...counted } = result;
      const { dryRun: _r, ...dryCounted } = dry;
      expect(dryCounted).toEqual(counted);
      expect(result.total).toEqual({
        added: 2,
        updated: 2,
        unchanged: v1.items.length - 3,
        removed: 1,
        overwrittenEdits: 1,
      });
      expect(result.changes).toEqual([
        { kind: 'narrative', key: 'glossary', action: 'added', overwrittenEdit: false },
        { kind: 'project-type', key: 'web-test', action: 'removed', overwrittenEdit: false },
        { kind: 'finding-template', key: 'outdated-php', action: 'updated', overwrittenEdit: false },
        { kind: 'finding-template', key: 'smb-signing-disabled', action: 'updated', overwrittenEdit: true },
        { kind: 'finding-template', key: 'telnet-enabled', action: 'added', overwrittenEdit: false },
      ]);

      expect(
        await dbs
          .tenant('finding_templates')
          .where({ global_key: 'smb-signing-disabled' })
          .first('description', 'edited'),
      ).toEqual({ description: 'The server does not require SMB signing.', edited: false });
      expect(
        await dbs.tenant('finding_templates').whereNull('global_key').select('title', 'description', 'edited'),
      ).toEqual([{ title: 'Our own template', description: 'Mine.', edited: false }]);
      const removed = await dbs.tenant('project_types').where({ global_key: 'web-test' }).first();
      expect(removed.global_removed_at).toBeInstanceOf(Date);
      expect(removed.name).toBe('Web application test');

      const again = await importGlobals(dbs.tenant, shared, { files });
      expect(again.total).toEqual({
        added: 0,
        updated: 0,
        unchanged: v2.items.length,
        removed: 0,
        overwrittenEdits: 0,
      });
    },
  );

  it('stores a changed Word template once and removes the replaced file after the commit', async () => {
    const v3 = await libraryOf({ ...withStyleTemplate(fakeDocx('v3')) });
    const puts = files.puts;
    const before = (await dbs.tenant('report_styles').where({ global_key: 'plain' }).first()).template_storage_key;
    const result = await importGlobals(dbs.tenant, v3, { files });
    expect(result.byKind['report-style']).toMatchObject({ updated: 1 });
    expect(files.puts).toBe(puts + 1);
    const style = await dbs.tenant('report_styles').where({ global_key: 'plain' }).first();
    expect(new Uint8Array(await files.read(style.template_storage_key))).toEqual(fakeDocx('v3'));
    expect(await files.exists(before)).toBe(false);
    expect(await dbs.tenant('unclaimed_objects').pluck('key')).toEqual([]);
    // v3 ships the web-test project type again: the marked row is updated and no longer marked.
    expect(await dbs.tenant('project_types').where({ global_key: 'web-test' }).first('global_removed_at')).toEqual({
      global_removed_at: null,
    });
  });

  it('matches scanner findings against the workspace rows', async () => {
    const rows = (await dbs
      .tenant('finding_templates')
      .orderByRaw('global_key is not null, created_at, id')
      .select(FINDING_TEMPLATE_MATCH_COLUMNS)) as Array<FindingTemplateMatchRow & { global_key: string | null }>;
    const index = buildTemplateMatchIndex(rows.map(matchableTemplateOfRow));
    const own = rows.find((r) => r.global_key === null)!;
    const php = rows.find((r) => r.global_key === 'outdated-php')!;
    // The user's own template comes first, so it wins the rule both declare.
    expect(
      matchTemplates({ source: { scanner: 'nessus' }, ruleId: '57608', title: 'SMB Signing Disabled' }, index),
    ).toEqual({ templateKey: own.id, matchedOn: 'rule', detail: 'nessus:57608', confidence: 'high' });
    expect(
      matchTemplates(
        { source: { scanner: 'nessus' }, ruleId: '24907', title: 'PHP < 5.2.1 Multiple Vulnerabilities' },
        index,
      ),
    ).toEqual({
      templateKey: php.id,
      matchedOn: 'titlePattern',
      detail: '/^PHP (\\d\\.x )?< ?\\d/',
      confidence: 'medium',
    });
    // The severity column is read, so an informational result does not take the high PHP template.
    expect(
      matchTemplates(
        { source: { scanner: 'nessus' }, ruleId: '1', title: 'PHP < 5.2.1 banner', severity: 'info' },
        index,
      ),
    ).toBeNull();
  });

  it('runs inside a caller transaction (tenant provisioning) and leaves nothing when that rolls back', async () => {
    const before = await dbs.tenant('narratives').orderBy('id').select('id', 'global_revision');
    const rollback = new Error('provisioning failed later');
    await expect(
      dbs.tenant.transaction(async (trx) => {
        const result = await importGlobals(trx, v2, { files });
        expect(result.total.added + result.total.updated).toBeGreaterThan(0);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(await dbs.tenant('narratives').orderBy('id').select('id', 'global_revision')).toEqual(before);
  });

  it('refuses to store a Word template without a file store, and leaves the workspace as it was', async () => {
    const v4 = await libraryOf({ ...withStyleTemplate(fakeDocx('v4')) });
    const before = await dbs.tenant('report_styles').select();
    await expect(importGlobals(dbs.tenant, v4)).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(await dbs.tenant('report_styles').select()).toEqual(before);
  });
});

describe('the import request of the control plane', () => {
  it('is kept until an import succeeds, and taken by one process only', async () => {
    expect(await pendingGlobalsImportRequest(dbs.controlPlane)).toBeNull();
    expect(await takeGlobalsImportRequest(dbs.controlPlane, async () => 'imported')).toEqual({ taken: false });
    const requestedAt = await requestGlobalsImport(dbs.controlPlane);
    expect(await pendingGlobalsImportRequest(dbs.controlPlane)).toEqual(requestedAt);

    await expect(
      takeGlobalsImportRequest(dbs.controlPlane, async () => Promise.reject(new Error('disk full'))),
    ).rejects.toThrow('disk full');
    expect(await pendingGlobalsImportRequest(dbs.controlPlane)).toEqual(requestedAt);

    let imports = 0;
    const run = () => takeGlobalsImportRequest(dbs.controlPlane, async () => ++imports);
    const [a, b] = await Promise.all([run(), run()]);
    expect([a.taken, b.taken].sort()).toEqual([false, true]);
    expect(imports).toBe(1);
    expect(await pendingGlobalsImportRequest(dbs.controlPlane)).toBeNull();
  });
});
