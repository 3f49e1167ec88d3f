import { createHash } from 'node:crypto';
import { LIBRARY_KINDS, type LibraryItem, type LibraryKind } from './library-item.ts';

/** Hex characters kept of a SHA-256: 64 bits, plenty to tell revisions of one item apart. */
const SHORT = 16;

/**
 * JSON with object keys sorted at every level and no whitespace, so the same content always
 * serialises to the same text whatever order the file (or a database) listed its keys in.
 * `undefined` members are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * The revision of an item: a short SHA-256 over its kind, key and canonical content. Formatting
 * of the file (quotes, key order, blank lines) does not change it; any change of a value does.
 */
export function itemRevision(kind: LibraryKind, key: string, content: unknown): string {
  return createHash('sha256').update(canonicalJson({ kind, key, content })).digest('hex').slice(0, SHORT);
}

/** Orders items by kind (LIBRARY_KINDS order: referenced kinds first), then key. */
export function compareItems(a: Pick<LibraryItem, 'kind' | 'key'>, b: Pick<LibraryItem, 'kind' | 'key'>): number {
  const byKind = LIBRARY_KINDS.indexOf(a.kind) - LIBRARY_KINDS.indexOf(b.kind);
  return byKind !== 0 ? byKind : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** The version of a whole library: a short SHA-256 over every item's kind, key and revision. */
export function libraryVersion(items: readonly Pick<LibraryItem, 'kind' | 'key' | 'revision'>[]): string {
  const hash = createHash('sha256');
  for (const item of [...items].sort(compareItems)) hash.update(`${item.kind}\t${item.key}\t${item.revision}\n`);
  return hash.digest('hex').slice(0, SHORT);
}
