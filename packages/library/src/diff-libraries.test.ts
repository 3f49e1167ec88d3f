import { describe, expect, it } from 'vitest';
import { canonicalJson, diffLibraries, itemRevision, libraryManifest, libraryVersion } from './index.ts';

describe('diffLibraries', () => {
  it('lists new, updated and removed items by kind and key, and counts the unchanged ones', () => {
    const previous = {
      items: [
        { kind: 'narrative' as const, key: 'scope', revision: 'a1' },
        { kind: 'finding-template' as const, key: 'sql-injection', revision: 'b1' },
        { kind: 'finding-template' as const, key: 'telnet', revision: 'c1' },
      ],
    };
    const next = {
      items: [
        { kind: 'finding-template' as const, key: 'xss', revision: 'd1' },
        { kind: 'finding-template' as const, key: 'sql-injection', revision: 'b2' },
        { kind: 'narrative' as const, key: 'scope', revision: 'a1' },
        { kind: 'report-style' as const, key: 'plain', revision: 'e1' },
      ],
    };
    expect(diffLibraries(previous, next)).toEqual({
      added: [
        { kind: 'report-style', key: 'plain', from: null, to: 'e1' },
        { kind: 'finding-template', key: 'xss', from: null, to: 'd1' },
      ],
      updated: [{ kind: 'finding-template', key: 'sql-injection', from: 'b1', to: 'b2' }],
      removed: [{ kind: 'finding-template', key: 'telnet', from: 'c1', to: null }],
      unchanged: 1,
    });
    expect(diffLibraries(next, next)).toMatchObject({ added: [], updated: [], removed: [], unchanged: 4 });
  });

  it('works on manifests, which carry no content', () => {
    const items = [{ kind: 'narrative' as const, key: 'scope', revision: 'a1' }];
    const manifest = libraryManifest({ version: libraryVersion(items), items });
    expect(manifest).toEqual({ version: libraryVersion(items), items });
    expect(diffLibraries(manifest, { items: [] }).removed).toHaveLength(1);
  });
});

describe('revisions and versions', () => {
  it('serialise content canonically: key order does not matter, values do', () => {
    expect(canonicalJson({ b: [1, { d: 'x', c: null }], a: 'é', skip: undefined })).toBe(
      '{"a":"é","b":[1,{"c":null,"d":"x"}]}',
    );
    expect(itemRevision('narrative', 'scope', { title: 'Scope', content: 'x' })).toBe(
      itemRevision('narrative', 'scope', { content: 'x', title: 'Scope' }),
    );
    expect(itemRevision('narrative', 'scope', { title: 'Scope', content: 'x' })).not.toBe(
      itemRevision('narrative', 'scope', { title: 'Scope', content: 'y' }),
    );
    expect(itemRevision('narrative', 'scope', {})).toMatch(/^[0-9a-f]{16}$/);
  });

  it('version a library by its items, whatever their order', () => {
    const a = { kind: 'narrative' as const, key: 'a', revision: '1' };
    const b = { kind: 'narrative' as const, key: 'b', revision: '2' };
    expect(libraryVersion([a, b])).toBe(libraryVersion([b, a]));
    expect(libraryVersion([a, b])).not.toBe(libraryVersion([a, { ...b, revision: '3' }]));
  });
});
