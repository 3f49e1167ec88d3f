import { existsSync } from 'node:fs';
import { diffLibraries, loadLibrary } from '@service/library';
import type { LibraryCounts } from './plan-upgrade.ts';

/**
 * New, updated and removed global library items between the installed release's library/ and
 * the new one's (by kind, key and revision). Null when either cannot be read: the question is
 * then not asked, and `import-globals` stays available.
 */
export async function libraryCounts(
  installedDir: string,
  newDir: string,
  log: (line: string) => void,
): Promise<LibraryCounts | null> {
  try {
    const next = await loadLibrary(newDir);
    const previous = existsSync(installedDir) ? await loadLibrary(installedDir) : { items: [] };
    const diff = diffLibraries(previous, next);
    return { added: diff.added.length, updated: diff.updated.length, removed: diff.removed.length };
  } catch (err) {
    log(`the library difference could not be computed: ${(err as Error).message}`);
    return null;
  }
}
