/**
 * The URL of `rel="next"` in an RFC 8288 `Link` header, or null on the last page. The service
 * writes absolute URLs that keep the request's query, so the next page is fetched as it is.
 */
export function nextLink(header: string | null): string | null {
  if (!header) return null;
  for (const link of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(link);
    if (!match) continue;
    const rels = /;\s*rel="?([^";]+)"?/i.exec(match[2]!)?.[1]?.toLowerCase().split(/\s+/) ?? [];
    if (rels.includes('next')) return match[1]!;
  }
  return null;
}
