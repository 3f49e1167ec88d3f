import type { FileStoreState } from '../files/file-store-status.ts';
import { renderDateTime } from './format-timestamp.ts';
import { html, type SafeHtml } from './html-template.ts';

/** Where the organization's files are kept, and whether the service can reach them right now. */
export function renderFileStoreCard(store: FileStoreState): SafeHtml {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  const state =
    store.state === 'ok'
      ? html`<p class="status" role="status">Working. Last reached ${renderDateTime(iso(store.lastOk))}.</p>`
      : html`<p class="alert" role="alert">${store.state === 'full' ? 'Full' : 'Unavailable'} since ${renderDateTime(
          iso(store.since),
        )}: ${store.reason ?? 'unknown'}. Uploads and exports with images answer ${
          store.state === 'full' ? '507 storage_full' : '503 storage_unavailable'
        } until it is back; see the operator guide.</p>`;
  return html`<section class="card" aria-labelledby="file-store-heading">
<h2 id="file-store-heading">File storage</h2>
<p>Evidence images and Word templates are kept in the ${store.kind === 's3' ? 'S3-compatible store' : 'local file store'}: <span class="mono">${store.where}</span>.</p>
${state}
</section>`;
}
