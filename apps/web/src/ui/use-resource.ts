import { useCallback, useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload(): void;
  set(data: T): void;
}

/** Loads what a page shows; `deps` say when to load again. */
export function useResource<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (!current) return;
        setError(err);
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data, error, loading, reload, set: setData };
}

export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · service`;
  }, [title]);
}
