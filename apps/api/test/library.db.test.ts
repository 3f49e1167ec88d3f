import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importGlobals, itemsOfKind, loadLibrary, type Library } from '@service/library';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const LIBRARY_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../library');

let app: TestApp;
let member: Actor;
let library: Library;

beforeAll(async () => {
  app = await startTestApp();
  member = await createActor(app, { role: 'member' });
  library = await loadLibrary(LIBRARY_DIR);
});
afterAll(async () => {
  await app?.stop();
});

const total = async (p: string) => Number((await member.api.get(p)).headers.get('x-total-count'));

describe('the global library in a workspace', () => {
  it('a fresh install shows every library item through the library endpoints', async () => {
    expect(await total('/finding-library?origin=global&per_page=1')).toBe(
      itemsOfKind(library, 'finding-template').length,
    );
    expect(await total('/style-library?origin=global&per_page=1')).toBe(itemsOfKind(library, 'report-style').length);
    expect(await total('/report-templates?origin=global&per_page=1')).toBe(
      itemsOfKind(library, 'report-template').length,
    );
    expect(await total('/narratives?origin=global&per_page=1')).toBe(itemsOfKind(library, 'narrative').length);
    expect(await total('/scoping-templates?origin=global&per_page=1')).toBe(
      itemsOfKind(library, 'scoping-template').length,
    );
    expect(await total('/project-types?origin=global&per_page=1')).toBe(itemsOfKind(library, 'project-type').length);
    expect(await total('/library?per_page=1')).toBe(library.items.length);
    expect(await total('/library?kind=narrative&per_page=1')).toBe(itemsOfKind(library, 'narrative').length);
    const smb = (await member.api.get('/finding-library?q=smb+signing')).body.find(
      (t: { globalKey: string }) => t.globalKey === 'smb-signing-not-required',
    );
    expect(smb).toMatchObject({
      globalKey: 'smb-signing-not-required',
      globalRevision: expect.any(String),
      edited: false,
      globalRemovedAt: null,
      language: 'en',
    });
    expect(Object.keys(smb.translations)).toContain('de');
    const withTemplate = (await member.api.get('/style-library?origin=global')).body.filter(
      (s: { wordTemplate: unknown }) => s.wordTemplate !== null,
    );
    expect(withTemplate).toHaveLength(1);
  });

  it('finds templates by common abbreviations and ranks a title match first', async () => {
    const keys = async (q: string) =>
      (await member.api.get(`/finding-library?q=${encodeURIComponent(q)}`)).body.map(
        (t: { globalKey: string }) => t.globalKey,
      ) as string[];
    expect(await keys('IDOR')).toContain('insecure-direct-object-reference');
    expect((await keys('xss')).slice(0, 3)).toEqual(
      expect.arrayContaining(['cross-site-scripting-reflected', 'cross-site-scripting-stored']),
    );
    expect(await keys('SQLi')).toContain('sql-injection');
    expect((await keys('sql')).slice(0, 3)).toContain('sql-injection');
    for (const [q, key] of [
      ['CSRF', 'cross-site-request-forgery'],
      ['SSRF', 'server-side-request-forgery'],
      ['RCE', 'os-command-injection'],
      ['LFI', 'path-traversal'],
      ['XXE', 'xml-external-entity-injection'],
      ['SSTI', 'server-side-template-injection'],
    ] as const)
      expect(await keys(q), q).toContain(key);
    // A title match before a text match: the first result names the weakness in its title.
    const first = (await member.api.get('/finding-library?q=sql')).body[0] as { title: string };
    expect(first.title.toLowerCase()).toMatch(/^sql/);
  });

  it(
    'an import of a newer library overwrites an edited global item, keeps your own, ' +
      'adds new ones, and a second import changes nothing',
    async () => {
      const [global] = (await member.api.get('/finding-library?origin=global&per_page=1')).body;
      const edit = await member.api.patch(`/finding-library/${global.id}`, { remediation: 'Our own wording.' });
      expect(edit.body.edited).toBe(true);
      expect(await total('/library?edited=true&per_page=1')).toBe(1);
      const own = await member.api.post('/finding-library', { title: 'Our own finding', severity: 'low' });
      expect(own.body).toMatchObject({ globalKey: null, edited: false });

      // A newer release: one narrative more, one finding template changed, one narrative dropped.
      const [dropped, ...kept] = itemsOfKind(library, 'narrative');
      const changedKey = itemsOfKind(library, 'finding-template')[1]!.key;
      const newer: Library = {
        ...library,
        version: 'newer-test-version',
        items: [
          ...library.items
            .filter((i) => i !== dropped)
            .map((i) =>
              i.key === changedKey
                ? {
                    ...i,
                    revision: 'r-changed',
                    content: { ...(i.content as object), remediation: 'Updated by the vendor.' },
                  }
                : i,
            ),
          {
            ...kept[0]!,
            key: 'brand-new-narrative',
            revision: 'r-new',
            content: { ...(kept[0]!.content as object), title: 'A brand-new narrative' },
          },
        ] as Library['items'],
      };
      const dry = await importGlobals(app.dbs.tenant, newer, { dryRun: true });
      const first = await importGlobals(app.dbs.tenant, newer);
      expect(dry.total).toEqual(first.total);
      expect(first.total).toMatchObject({ added: 1, removed: 1, overwrittenEdits: 1 });
      expect(first.total.updated).toBeGreaterThanOrEqual(2);
      expect((await member.api.get(`/finding-library/${global.id}`)).body).toMatchObject({
        remediation: global.remediation,
        edited: false,
      });
      expect((await member.api.get(`/finding-library/${own.body.id}`)).body.title).toBe('Our own finding');
      expect((await member.api.get('/narratives?q=brand+new')).body[0]).toMatchObject({
        globalKey: 'brand-new-narrative',
      });
      const droppedRow = (await member.api.get(`/narratives?origin=global&per_page=100`)).body.find(
        (n: { globalKey: string }) => n.globalKey === dropped!.key,
      );
      expect(droppedRow.globalRemovedAt).not.toBeNull();
      const second = await importGlobals(app.dbs.tenant, newer);
      expect(second.total).toMatchObject({ added: 0, updated: 0, removed: 0 });
    },
  );

  it('keeps the library from external collaborators', async () => {
    const external = await createActor(app, { role: 'external' });
    for (const p of [
      '/library',
      '/finding-library',
      '/narratives',
      '/scoping-templates',
      '/project-types',
      '/style-library',
      '/report-templates',
    ]) {
      const res = await external.api.get(p);
      expect(res.status === 404 || (res.status === 200 && res.body.length === 0), p).toBe(true);
    }
  });

  it('refuses a title pattern that cannot compile or could run for ever', async () => {
    const res = await member.api.post('/finding-library', {
      title: 'x',
      severity: 'low',
      titlePatterns: { nessus: ['(a+)+$'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('/titlePatterns/nessus');
  });
});
