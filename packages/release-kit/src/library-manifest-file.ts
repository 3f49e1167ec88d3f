import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { parsePackageJsonFile } from './package-manifest.ts';

/**
 * `library-manifest.json`: the global library of a release without its content, every item's
 * kind, key and revision. The release tool writes it (from the library it validated); the
 * installer compares the installed release's with the new one's to state how many items are new
 * and updated, without reading (or being able to render) the library itself.
 */
export const LIBRARY_MANIFEST_FILE = 'library-manifest.json';
export const LIBRARY_MANIFEST_FORMAT = 'service-library-manifest-v1';
const MAX_BYTES = 8 * 1024 * 1024;

const Item = Type.Object(
  {
    kind: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z-]+$' }),
    key: Type.String({ minLength: 1, maxLength: 200 }),
    revision: Type.String({ minLength: 1, maxLength: 128 }),
  },
  { additionalProperties: false },
);

export const LibraryManifestFileSchema = Type.Object(
  {
    format: Type.Literal(LIBRARY_MANIFEST_FORMAT),
    version: Type.String({ minLength: 1, maxLength: 128 }),
    items: Type.Array(Item, { maxItems: 100_000 }),
  },
  { additionalProperties: false },
);

export type LibraryManifestFile = Static<typeof LibraryManifestFileSchema>;

const check = Compile(LibraryManifestFileSchema);

/** Reads and validates library-manifest.json; a failure names the field. */
export function parseLibraryManifestFile(text: string, source = LIBRARY_MANIFEST_FILE): LibraryManifestFile {
  return parsePackageJsonFile(text, source, MAX_BYTES, check);
}

/** The file's bytes: items in the order given (the library's), two-space indent, final newline. */
export function serializeLibraryManifestFile(manifest: Omit<LibraryManifestFile, 'format'>): string {
  const file: LibraryManifestFile = {
    format: LIBRARY_MANIFEST_FORMAT,
    version: manifest.version,
    items: manifest.items.map(({ kind, key, revision }) => ({ kind, key, revision })),
  };
  if (!check.Check(file)) throw new RangeError('library manifest does not match its schema');
  return `${JSON.stringify(file, null, 2)}\n`;
}
