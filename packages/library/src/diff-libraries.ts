import { compareItems } from './item-revision.ts';
import type { LibraryItem, LibraryKind } from './library-item.ts';

/** What identifies an item version: enough to compare libraries without their content. */
export type LibraryItemVersion = Pick<LibraryItem, 'kind' | 'key' | 'revision'>;

export interface LibraryItemChange {
  kind: LibraryKind;
  key: string;
  /** Revision in the old library (null when added). */
  from: string | null;
  /** Revision in the new library (null when removed). */
  to: string | null;
}

export interface LibraryDiff {
  added: LibraryItemChange[];
  updated: LibraryItemChange[];
  removed: LibraryItemChange[];
  unchanged: number;
}

/**
 * The difference between two libraries (or their manifests): items new in `next`, items whose
 * revision changed, and items `next` no longer has. Items are identified by kind and key; each
 * list is sorted by kind, then key.
 */
export function diffLibraries(
  previous: { items: readonly LibraryItemVersion[] },
  next: { items: readonly LibraryItemVersion[] },
): LibraryDiff {
  const id = (i: LibraryItemVersion) => `${i.kind}\u0000${i.key}`;
  const before = new Map(previous.items.map((i) => [id(i), i]));
  const diff: LibraryDiff = { added: [], updated: [], removed: [], unchanged: 0 };
  const seen = new Set<string>();
  for (const item of [...next.items].sort(compareItems)) {
    seen.add(id(item));
    const old = before.get(id(item));
    if (!old) diff.added.push({ kind: item.kind, key: item.key, from: null, to: item.revision });
    else if (old.revision !== item.revision)
      diff.updated.push({ kind: item.kind, key: item.key, from: old.revision, to: item.revision });
    else diff.unchanged++;
  }
  for (const item of [...previous.items].sort(compareItems)) {
    if (!seen.has(id(item))) diff.removed.push({ kind: item.kind, key: item.key, from: item.revision, to: null });
  }
  return diff;
}

/**
 * A library's identity without its content: its version and every item's kind, key and
 * revision. Small enough to ship beside a release (for the installer's "N new, M updated"
 * question) and to compare with diffLibraries.
 */
export interface LibraryManifest {
  version: string;
  items: LibraryItemVersion[];
}

export function libraryManifest(library: { version: string; items: readonly LibraryItemVersion[] }): LibraryManifest {
  return {
    version: library.version,
    items: [...library.items].sort(compareItems).map(({ kind, key, revision }) => ({ kind, key, revision })),
  };
}
