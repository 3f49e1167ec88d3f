import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, isNetworkError } from '../api/api-error.ts';
import { readDraft, writeDraft, type Draft } from './drafts.ts';
import type { SaveState } from './save-state.ts';

export interface Versioned {
  id: string;
  updatedAt: string;
}

export interface Conflict<T> {
  mine: Partial<T>;
  theirs: T;
}

export interface AutosaveOptions<T extends Versioned> {
  /** Names the draft in local storage: `finding:<id>`. */
  draftKey: string;
  /** The row as the service last sent it. */
  row: T;
  /** Sends the changes with `expectedUpdatedAt`; answers the saved row. */
  save(changes: Partial<T>, expectedUpdatedAt: string): Promise<T>;
  /** Reads the row as the service has it now (for a conflict). */
  fetchLatest(): Promise<T>;
  /** How long typing must pause before a save (ms). */
  delayMs?: number;
}

export interface Autosave<T extends Versioned> {
  /** The row with the unsaved changes applied: what the editor shows. */
  value: T;
  /** The row as the service has it. */
  base: T;
  pending: Partial<T>;
  state: SaveState;
  error: string | null;
  conflict: Conflict<T> | null;
  /** Counts the times the value changed from elsewhere (someone else's save, a resolved conflict). */
  revision: number;
  change<K extends keyof T>(field: K, value: T[K]): void;
  /** Saves now (Ctrl+S, leaving the page). */
  flush(): Promise<void>;
  /** Ends a conflict: per field, keep mine or take theirs. */
  resolve(choice: Partial<Record<keyof T, 'mine' | 'theirs'>>): void;
  /** Someone else saved: take their row when nothing is pending, else open the conflict. */
  receive(latest: T): void;
}

const RETRY_MS = [1000, 2000, 5000, 10000, 30000];
const PERSIST_MS = 250;

/**
 * Autosave with optimistic concurrency: changes are kept as a draft in local storage at once,
 * sent after a pause with the `updatedAt` they were made against, and a 409 opens a conflict
 * showing both versions. A lost connection keeps the draft and retries; nothing typed is lost.
 */
export function useAutosave<T extends Versioned>(options: AutosaveOptions<T>): Autosave<T> {
  const { draftKey, delayMs = 800 } = options;
  const restored = useMemo(() => readDraft<T>(draftKey), [draftKey]);
  const [base, setBase] = useState<T>(options.row);
  const [pending, setPending] = useState<Partial<T>>(restored?.changes ?? {});
  const [state, setState] = useState<SaveState>(restored ? 'unsaved' : 'saved');
  const [error, setError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict<T> | null>(null);
  const [revision, setRevision] = useState(0);
  const ref = useRef({
    base: restored ? { ...options.row, updatedAt: restored.baseUpdatedAt } : options.row,
    pending: (restored?.changes ?? {}) as Partial<T>,
    saving: false,
    conflict: false,
    timer: 0,
    persistTimer: 0,
    attempt: 0,
    options,
  });
  ref.current.options = options;

  const persist = useCallback(() => {
    const r = ref.current;
    window.clearTimeout(r.persistTimer);
    r.persistTimer = 0;
    const draft: Draft<T> = { baseUpdatedAt: r.base.updatedAt, changes: r.pending, savedAt: Date.now() };
    writeDraft(draftKey, draft);
  }, [draftKey]);

  /**
   * Keeps the draft at most PERSIST_MS behind typing. Why not on every key: writing a 100 KB tab to
   * storage on each keystroke costs more than the keystroke; leaving or hiding the page writes it at once.
   */
  const persistSoon = useCallback(() => {
    const r = ref.current;
    if (!r.persistTimer) r.persistTimer = window.setTimeout(persist, PERSIST_MS);
  }, [persist]);

  /** Takes the service's row when it already holds everything pending; true then (nothing to choose). */
  const adopt = useCallback(
    (theirs: T): boolean => {
      const r = ref.current;
      const same = (Object.keys(r.pending) as Array<keyof T>).every(
        (k) => JSON.stringify(r.pending[k]) === JSON.stringify(theirs[k]),
      );
      if (!same) return false;
      r.base = theirs;
      r.pending = {};
      r.conflict = false;
      persist();
      setBase(theirs);
      setPending({});
      setConflict(null);
      setState('saved');
      setRevision((n) => n + 1);
      return true;
    },
    [persist],
  );

  const openConflict = useCallback(async () => {
    const r = ref.current;
    r.conflict = true;
    setState('conflict');
    const theirs = await r.options.fetchLatest();
    // Why: a draft saved from another tab, or saved just before a reload, is already there.
    if (adopt(theirs)) return;
    setConflict({ mine: { ...r.pending }, theirs });
  }, [adopt]);

  const send = useCallback(async (): Promise<void> => {
    const r = ref.current;
    window.clearTimeout(r.timer);
    if (r.saving || r.conflict || Object.keys(r.pending).length === 0) return;
    const sent = { ...r.pending };
    r.saving = true;
    setState('saving');
    try {
      const saved = await r.options.save(sent, r.base.updatedAt);
      r.attempt = 0;
      r.base = saved;
      // Why compare: what was typed while the save was on its way stays pending.
      for (const key of Object.keys(sent) as Array<keyof T>) if (r.pending[key] === sent[key]) delete r.pending[key];
      persist();
      setBase(saved);
      setPending({ ...r.pending });
      setError(null);
      setState(Object.keys(r.pending).length > 0 ? 'unsaved' : 'saved');
      if (Object.keys(r.pending).length > 0) r.timer = window.setTimeout(() => void send(), delayMs);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        r.saving = false;
        await openConflict();
        return;
      }
      const retry = isNetworkError(err) || (err instanceof ApiError && (err.status === 429 || err.status >= 500));
      setError(err instanceof Error ? err.message : String(err));
      if (retry) {
        setState('offline');
        const wait =
          (err instanceof ApiError ? err.retryAfter : null) ??
          RETRY_MS[Math.min(r.attempt, RETRY_MS.length - 1)]! / 1000;
        r.attempt += 1;
        r.timer = window.setTimeout(() => void send(), wait * 1000);
      } else setState('error');
    } finally {
      r.saving = false;
    }
  }, [delayMs, openConflict, persist]);

  // A draft restored from an earlier visit is sent at once (and meets the conflict check if the row moved on).
  useEffect(() => {
    if (restored) void send();
  }, [restored, send]);

  useEffect(() => {
    const flushOnHide = () => {
      persist();
      if (document.visibilityState === 'hidden') void send();
    };
    const online = () => void send();
    document.addEventListener('visibilitychange', flushOnHide);
    window.addEventListener('pagehide', persist);
    window.addEventListener('online', online);
    return () => {
      document.removeEventListener('visibilitychange', flushOnHide);
      window.removeEventListener('pagehide', persist);
      window.removeEventListener('online', online);
      window.clearTimeout(ref.current.timer);
    };
  }, [persist, send]);

  const change = useCallback(
    <K extends keyof T>(field: K, value: T[K]) => {
      const r = ref.current;
      r.pending = { ...r.pending, [field]: value };
      persistSoon();
      setPending(r.pending);
      if (r.conflict) return;
      setState('unsaved');
      window.clearTimeout(r.timer);
      r.timer = window.setTimeout(() => void send(), delayMs);
    },
    [delayMs, persistSoon, send],
  );

  const resolve = useCallback(
    (choice: Partial<Record<keyof T, 'mine' | 'theirs'>>) => {
      const r = ref.current;
      setConflict((current) => {
        if (!current) return null;
        const kept: Partial<T> = {};
        for (const key of Object.keys(current.mine) as Array<keyof T>)
          if ((choice[key] ?? 'mine') === 'mine') kept[key] = current.mine[key];
        // What was typed while the dialog was open is kept too.
        for (const key of Object.keys(r.pending) as Array<keyof T>)
          if (r.pending[key] !== current.mine[key] && choice[key] !== 'theirs') kept[key] = r.pending[key];
        r.base = current.theirs;
        r.pending = kept;
        r.conflict = false;
        setBase(current.theirs);
        setPending(kept);
        persist();
        setState(Object.keys(kept).length > 0 ? 'unsaved' : 'saved');
        setRevision((n) => n + 1);
        if (Object.keys(kept).length > 0) r.timer = window.setTimeout(() => void send(), 0);
        return null;
      });
    },
    [persist, send],
  );

  const receive = useCallback(
    (latest: T) => {
      const r = ref.current;
      if (latest.updatedAt === r.base.updatedAt || r.saving || r.conflict) return;
      if (Date.parse(latest.updatedAt) < Date.parse(r.base.updatedAt)) return;
      if (Object.keys(r.pending).length === 0) {
        r.base = latest;
        setBase(latest);
        setRevision((n) => n + 1);
        return;
      }
      if (adopt(latest)) return;
      r.conflict = true;
      setState('conflict');
      setConflict({ mine: { ...r.pending }, theirs: latest });
    },
    [adopt],
  );

  const value = useMemo(() => ({ ...base, ...pending }) as T, [base, pending]);
  return { value, base, pending, state, error, conflict, revision, change, flush: send, resolve, receive };
}
