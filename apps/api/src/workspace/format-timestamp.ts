import { html, type SafeHtml } from './html-template.ts';

// Why: times are shown in UTC, the same on the server and in workspace.js, so a re-rendered row
// never disagrees with the server-rendered one.

/** `2027-03-01` in a <time> element. */
export function renderDate(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${iso.slice(0, 10)}</time>`;
}

/** `2026-03-01 10:22 UTC` in a <time> element, or `never`. */
export function renderDateTime(iso: string | null): SafeHtml {
  if (!iso) return html`never`;
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}
