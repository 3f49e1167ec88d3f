import type { presentApiKey } from '../identity/identity-schemas.ts';
import { renderDate, renderDateTime } from './format-timestamp.ts';
import { html, type SafeHtml } from './html-template.ts';

export type PresentedApiKey = ReturnType<typeof presentApiKey>;

/** Which endpoint a Revoke button calls (workspace.js reads it from the table). */
export type RevokeAction = 'revoke-own-key' | 'revoke-org-key';

function renderClients(clientIds: string[] | null): SafeHtml {
  if (clientIds === null) return html`all clients`;
  if (clientIds.length === 0) return html`no clients`;
  return html`<ul class="ids">${clientIds.map((id) => html`<li><code>${id}</code></li>`)}</ul>`;
}

function renderRow(key: PresentedApiKey, withOwner: boolean): SafeHtml {
  return html`<tr data-id="${key.id}">
${withOwner ? html`<td>${key.ownerName}<br><span class="muted">${key.ownerEmail}</span></td>` : ''}
<td>${key.name}</td>
<td class="nowrap"><code>${key.prefix}…</code></td>
<td class="nowrap">${key.scope}</td>
<td>${renderClients(key.clientIds)}</td>
<td><span class="state state-${key.state}">${key.state}</span></td>
<td>${renderDate(key.expiresAt)}</td>
<td>${renderDateTime(key.lastUsedAt)}</td>
<td>${key.state === 'active' ? html`<button type="button" class="button danger small" data-action="revoke" data-id="${key.id}" data-name="${key.name}" aria-label="Revoke key ${key.name}">Revoke</button>` : ''}</td>
</tr>`;
}

/** The table of API keys; workspace.js re-renders its body in the same shape. Key values never appear. */
export function renderKeyTable(keys: PresentedApiKey[], options: { caption: string; withOwner: boolean; revokeAction: RevokeAction }): SafeHtml {
  const headers = [...(options.withOwner ? ['Owner'] : []), 'Name', 'Key', 'Scope', 'Clients', 'State', 'Expires', 'Last used', 'Actions'];
  return html`<div class="table-scroll"><table class="data" id="key-table" data-revoke-action="${options.revokeAction}" data-with-owner="${options.withOwner ? 'yes' : 'no'}">
<caption class="visually-hidden">${options.caption}</caption>
<thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>
${keys.length ? keys.map((k) => renderRow(k, options.withOwner)) : html`<tr class="empty"><td colspan="${headers.length}">No API keys yet.</td></tr>`}
</tbody>
</table></div>`;
}
