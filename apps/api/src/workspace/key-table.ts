import type { presentApiKey } from '../identity/identity-schemas.ts';
import type { ClientChoice } from './client-picker.ts';
import { renderDate, renderDateTime } from './format-timestamp.ts';
import { html, type SafeHtml } from './html-template.ts';

export type PresentedApiKey = ReturnType<typeof presentApiKey>;

/** Which endpoint a Revoke button calls (workspace.js reads it from the table). */
export type RevokeAction = 'revoke-own-key' | 'revoke-org-key';

/** Said under the clients of a key that adds the clients it creates. */
const ADDS_CREATED = 'and the clients it creates';

function renderClients(
  clientIds: readonly string[],
  names: ReadonlyMap<string, string>,
  addsCreated: boolean,
): SafeHtml {
  const created = addsCreated
    ? html`<p class="adds-created">${clientIds.length === 0 ? 'the clients it creates' : ADDS_CREATED}</p>`
    : null;
  if (clientIds.length === 0) return created ?? html`<span class="muted">none: edits nothing</span>`;
  const known = clientIds.filter((id) => names.has(id)).sort((a, b) => names.get(a)!.localeCompare(names.get(b)!));
  const unknown = clientIds.filter((id) => !names.has(id));
  return html`<ul class="names">${known.map((id) => html`<li>${names.get(id)}</li>`)}${unknown.map((id) => html`<li class="muted" title="${id}">a client you cannot see (deleted or in the trash)</li>`)}</ul>${created}`;
}

function renderRow(
  key: PresentedApiKey,
  options: { withOwner: boolean; editable: boolean; names: ReadonlyMap<string, string> },
): SafeHtml {
  const active = key.state === 'active';
  return html`<tr data-id="${key.id}" data-client-ids="${key.clientIds.join(' ')}" data-adds-created-clients="${key.addsCreatedClients ? 'yes' : 'no'}">
${options.withOwner ? html`<td>${key.ownerName}<br><span class="muted">${key.ownerEmail}</span></td>` : ''}
<td>${key.name}</td>
<td class="nowrap"><code>${key.prefix}…</code></td>
<td class="nowrap">${key.scope}</td>
<td>${renderClients(key.clientIds, options.names, key.addsCreatedClients)}</td>
<td><span class="state state-${key.state}">${key.state}</span></td>
<td>${renderDate(key.expiresAt)}</td>
<td>${renderDateTime(key.lastUsedAt)}</td>
<td class="actions">${active && options.editable ? html`<button type="button" class="button secondary small" data-action="edit-clients" data-id="${key.id}" data-name="${key.name}" aria-label="Edit clients of key ${key.name}">Edit clients</button> ` : ''}${
    active
      ? html`<button type="button" class="button danger small" data-action="revoke" data-id="${key.id}" data-name="${key.name}" aria-label="Revoke key ${key.name}">Revoke</button>`
      : ''
  }</td>
</tr>`;
}

/** The table of API keys; workspace.js re-renders its body in the same shape. Key values never appear. */
export function renderKeyTable(
  keys: PresentedApiKey[],
  options: {
    caption: string;
    withOwner: boolean;
    revokeAction: RevokeAction;
    clients: readonly ClientChoice[];
    editable: boolean;
  },
): SafeHtml {
  const names = new Map(options.clients.map((c) => [c.id, c.name]));
  const headers = [
    ...(options.withOwner ? ['Owner'] : []),
    'Name',
    'Key',
    'Scope',
    'Clients',
    'State',
    'Expires',
    'Last used',
    'Actions',
  ];
  return html`<div class="table-scroll"><table class="data" id="key-table" data-revoke-action="${options.revokeAction}" data-with-owner="${options.withOwner ? 'yes' : 'no'}" data-editable="${options.editable ? 'yes' : 'no'}">
<caption class="visually-hidden">${options.caption}</caption>
<thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>
${keys.length ? keys.map((k) => renderRow(k, { withOwner: options.withOwner, editable: options.editable, names })) : html`<tr class="empty"><td colspan="${headers.length}">No API keys yet.</td></tr>`}
</tbody>
</table></div>`;
}
