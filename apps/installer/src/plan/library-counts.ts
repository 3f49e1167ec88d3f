import path from 'node:path';
import { diffLibraries, type LibraryItemVersion } from '@service/library/manifest';
import {
  LIBRARY_MANIFEST_FILE,
  parseLibraryManifestFile,
  readSmallFile,
  type PackageManifest,
} from '@service/release-kit';
import type { LibraryCounts } from './plan-upgrade.ts';

/**
 * New, updated and removed global library items between the installed release and the new one,
 * from the `library-manifest.json` each release ships (kind, key and revision of every item): no
 * library reader, no rendering code. Without the installed one (a release from before it was
 * shipped), equal library versions in the two manifests still mean "nothing changed"; otherwise
 * the counts are unknown (null): the question is not asked and `import-globals` stays available.
 */
export async function libraryCounts(
  home: string,
  packageDir: string,
  manifests: { installed: PackageManifest | null; next: PackageManifest },
  log: (line: string) => void,
): Promise<LibraryCounts | null> {
  const read = async (dir: string) => {
    const file = path.join(dir, LIBRARY_MANIFEST_FILE);
    const text = await readSmallFile(file, 8 * 1024 * 1024);
    if (text === null) throw new Error(`${file} is missing`);
    return parseLibraryManifestFile(text, file);
  };
  try {
    const next = await read(packageDir);
    const installed = await read(home).catch((err: Error) => {
      log(`the installed release's library manifest cannot be read: ${err.message}`);
      return null;
    });
    if (installed === null) {
      if (manifests.installed?.library.version === manifests.next.library.version)
        return { added: 0, updated: 0, removed: 0 };
      return null;
    }
    // Why the cast: the kinds are checked as strings here; an unknown kind simply sorts last.
    const items = (m: { items: unknown[] }) => ({ items: m.items as LibraryItemVersion[] });
    const diff = diffLibraries(items(installed), items(next));
    return { added: diff.added.length, updated: diff.updated.length, removed: diff.removed.length };
  } catch (err) {
    log(`the library difference could not be computed: ${(err as Error).message}`);
    return null;
  }
}
