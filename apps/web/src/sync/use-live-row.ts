import { useEffect, useRef } from 'preact/hooks';

/** How often an open row is checked for someone else's save. */
export const LIVE_POLL_MS = 3000;

/**
 * Someone else's saves, within a few seconds: the row's URL is polled with `If-None-Match`, so an
 * unchanged row costs a 304 with no body; a changed one is handed to `onChange`. Why polling and
 * not server-sent events: it needs nothing beyond the REST API's ETags (no long-lived connections
 * through proxies, no notification channel between several service machines), and it stops while
 * the page is hidden.
 */
export function useLiveRow<T>(url: string | null, onChange: (row: T) => void, intervalMs = LIVE_POLL_MS): void {
  const etag = useRef<string | null>(null);
  const handler = useRef(onChange);
  handler.current = onChange;
  useEffect(() => {
    if (!url) return;
    etag.current = null;
    let stopped = false;
    let timer = 0;
    const tick = async () => {
      if (stopped) return;
      if (document.visibilityState === 'visible') {
        try {
          const response = await fetch(url, {
            cache: 'no-store',
            credentials: 'same-origin',
            headers: etag.current ? { 'If-None-Match': etag.current } : {},
          });
          if (response.status === 200) {
            etag.current = response.headers.get('ETag');
            handler.current((await response.json()) as T);
          }
        } catch {
          // Offline: the next tick tries again.
        }
      }
      if (!stopped) timer = window.setTimeout(() => void tick(), intervalMs);
    };
    void tick();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [url, intervalMs]);
}
