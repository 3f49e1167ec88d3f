import { useLocation } from 'preact-iso';

/** A list's page, search and filters, kept in the address so a filtered list can be shared and reloaded. */
export function useListQuery<F extends string>(filters: readonly F[]) {
  const { path, query, route } = useLocation();
  const page = Math.max(1, Number(query.page) || 1);
  const q = query.q ?? '';
  const values = Object.fromEntries(filters.map((f) => [f, query[f] ?? ''])) as Record<F, string>;
  const go = (next: Record<string, string | number>) => {
    const params = new URLSearchParams();
    const merged: Record<string, string | number> = { page, q, ...values, ...next };
    for (const [k, v] of Object.entries(merged)) if (v !== '' && !(k === 'page' && v === 1)) params.set(k, String(v));
    const search = params.toString();
    route(`${path}${search ? `?${search}` : ''}`, true);
  };
  return {
    page,
    q,
    filters: values,
    setPage: (p: number) => go({ page: p }),
    setQ: (text: string) => go({ q: text, page: 1 }),
    setFilter: (name: F, value: string) => go({ [name]: value, page: 1 }),
  };
}

/** Drops empty filters, so the REST list gets only the ones set. */
export function setOnly<T extends Record<string, string>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '')) as Partial<T>;
}
