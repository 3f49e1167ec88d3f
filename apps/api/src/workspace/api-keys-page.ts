import { KEY_SCOPES, DEFAULT_KEY_LIFETIME_MS, MAX_KEY_LIFETIME_MS, type SessionPrincipal } from '@service/auth';
import { renderClientDirectory, renderClientPicker, type ClientChoice } from './client-picker.ts';
import { html, type SafeHtml } from './html-template.ts';
import { renderKeyTable, type PresentedApiKey } from './key-table.ts';
import { renderPage } from './page-shell.ts';

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The clients a key may be given, and whether the list was cut short. */
export interface ClientChoices {
  clients: ClientChoice[];
  truncated: boolean;
}

function renderCreateForm(now: Date, choices: ClientChoices): SafeHtml {
  const t = now.getTime();
  // Why: workspace.js sends the chosen day as midnight UTC. The latest day offered is the last one
  // whose midnight still lies within the two-year limit, so the server never refuses it.
  const max = isoDay(t + MAX_KEY_LIFETIME_MS - DAY_MS);
  const min = isoDay(t + DAY_MS);
  const byDefault = isoDay(t + DEFAULT_KEY_LIFETIME_MS);
  return html`<section class="card" aria-labelledby="create-heading">
<h2 id="create-heading">Create a key</h2>
<form id="create-key-form" method="post">
<div class="grid">
<div class="field"><label for="key-name">Name</label>
<input id="key-name" name="name" required maxlength="200" placeholder="e.g. CI pipeline" aria-describedby="key-name-hint">
<p class="hint" id="key-name-hint">Say where the key will be used.</p></div>
<div class="field"><label for="key-scope">Scope</label>
<select id="key-scope" name="scope" aria-describedby="key-scope-hint">${KEY_SCOPES.map((s) => html`<option value="${s}">${s}</option>`)}</select>
<p class="hint" id="key-scope-hint">Read-only keys cannot create, change or delete anything.</p></div>
<div class="field"><label for="key-expires">Expires on (UTC)</label>
<input id="key-expires" name="expiresAt" type="date" value="${byDefault}" min="${min}" max="${max}" aria-describedby="key-expires-hint">
<p class="hint" id="key-expires-hint">Default: one year from today. At most two years.</p></div>
</div>
${renderClientPicker({ idPrefix: 'create-clients', clients: choices.clients, truncated: choices.truncated })}
${renderAddsCreatedClients('create-adds-created-clients')}
<p class="alert" role="alert" id="create-error"></p>
<button type="submit" class="button primary">Create key</button>
</form>
</section>`;
}

/** The key option for CI jobs: clients it creates join its allow-list. */
function renderAddsCreatedClients(id: string): SafeHtml {
  return html`<div class="field"><label class="check" for="${id}"><input type="checkbox" id="${id}" name="addsCreatedClients" aria-describedby="${id}-hint"> <span>Add the clients this key creates to its allow-list</span></label>
<p class="hint" id="${id}-hint">For CI jobs that create their own client, project and report, then import a scan into it. Off: a client the key creates must be added above before the key can edit it.</p></div>`;
}

/** Edits the allow-list of an existing key; workspace.js opens it from a row's "Edit clients" button. */
function renderEditClientsDialog(choices: ClientChoices): SafeHtml {
  return html`<dialog id="edit-clients-dialog" aria-labelledby="edit-clients-heading">
<form id="edit-clients-form" method="dialog">
<h2 id="edit-clients-heading">Client allow-list</h2>
${renderClientPicker({ idPrefix: 'edit-clients', clients: choices.clients, truncated: choices.truncated })}
${renderAddsCreatedClients('edit-adds-created-clients')}
<p class="alert" role="alert" id="edit-clients-error"></p>
<div class="dialog-actions"><button type="submit" class="button primary">Save clients</button> <button type="button" class="button secondary" data-action="cancel-edit-clients">Cancel</button></div>
</form>
</dialog>`;
}

export function renderApiKeysPage(options: {
  session: SessionPrincipal;
  keys: PresentedApiKey[];
  now: Date;
  choices: ClientChoices;
}): SafeHtml {
  const { session, keys, now, choices } = options;
  const body = html`<h1>API keys</h1>
<p class="lead">Personal keys for the REST API: <code>Authorization: Bearer service_sk_…</code>. A key acts as you, ${session.name}, with your role (${session.role}), limited by its scope and client allow-list.</p>
${renderCreateForm(now, choices)}
<div id="secret-slot"></div>
<section aria-labelledby="keys-heading">
<h2 id="keys-heading">Your keys</h2>
<p class="alert" role="alert" id="list-error"></p>
<p class="status" role="status" id="list-status" tabindex="-1"></p>
${renderKeyTable(keys, { caption: 'Your API keys', withOwner: false, revokeAction: 'revoke-own-key', clients: choices.clients, editable: true })}
</section>
${renderEditClientsDialog(choices)}
${renderClientDirectory(choices.clients)}`;
  return renderPage({ title: 'API keys', page: 'api-keys', session, body });
}
