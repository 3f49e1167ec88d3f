/**
 * Unsaved edits kept in the browser (localStorage) until the service has them: they survive a
 * reload, a closed tab and a lost connection. One draft per edited row, with the version of the
 * row it was typed against, so a draft restored later still meets the conflict check.
 */
export interface Draft<T> {
  /** The row's `updatedAt` the changes were made against. */
  baseUpdatedAt: string;
  changes: Partial<T>;
  savedAt: number;
}

const PREFIX = 'service.draft.';

export function readDraft<T>(key: string): Draft<T> | null {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    if (!raw) return null;
    const draft = JSON.parse(raw) as Draft<T>;
    return draft && typeof draft.baseUpdatedAt === 'string' && draft.changes ? draft : null;
  } catch {
    return null;
  }
}

export function writeDraft<T>(key: string, draft: Draft<T> | null): void {
  try {
    if (!draft || Object.keys(draft.changes).length === 0) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, JSON.stringify(draft));
  } catch {
    // Why ignored: a full or disabled storage must not stop typing; the save to the service still runs.
  }
}
