import { describe, expect, it } from 'vitest';
import { parseLibraryManifestFile, serializeLibraryManifestFile } from './library-manifest-file.ts';

describe('library-manifest.json', () => {
  it('round-trips the kind, key and revision of every item, in order', () => {
    const items = [
      { kind: 'finding-template', key: 'sql-injection', revision: '0123456789abcdef' },
      { kind: 'narrative', key: 'executive-summary', revision: 'fedcba9876543210' },
    ];
    const text = serializeLibraryManifestFile({ version: 'v1', items });
    expect(JSON.parse(text).format).toBe('service-library-manifest-v1');
    expect(parseLibraryManifestFile(text)).toEqual({ format: 'service-library-manifest-v1', version: 'v1', items });
  });

  it('names the field that is wrong, and refuses what is not JSON', () => {
    expect(() =>
      parseLibraryManifestFile(
        JSON.stringify({ format: 'service-library-manifest-v1', version: 'v1', items: [{ kind: 'x', key: '' }] }),
      ),
    ).toThrow(/library-manifest\.json field \/items\/0/);
    expect(() => parseLibraryManifestFile('{', 'pkg/library-manifest.json')).toThrow(
      /pkg\/library-manifest\.json is not valid JSON/,
    );
  });
});
