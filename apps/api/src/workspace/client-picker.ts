import { html, type SafeHtml } from './html-template.ts';

/** A client a person may put on a key's allow-list, by the name they know it by. */
export interface ClientChoice {
  id: string;
  /** The client's name, or for an external collaborator what they know it through. */
  name: string;
}

/**
 * Every client the page knows, by id: workspace.js names the clients of re-rendered key rows from
 * it. Hidden; the same data the pickers and tables show.
 */
export function renderClientDirectory(clients: readonly ClientChoice[]): SafeHtml {
  return html`<ul id="client-directory" hidden>${clients.map((c) => html`<li data-client-id="${c.id}">${c.name}</li>`)}</ul>`;
}

/**
 * Checkboxes of the workspace's clients by name, with a search box that narrows the list
 * (workspace.js). Without JavaScript it is still a plain, complete list of checkboxes.
 */
export function renderClientPicker(options: {
  idPrefix: string;
  clients: readonly ClientChoice[];
  truncated: boolean;
}): SafeHtml {
  const { idPrefix: p, clients } = options;
  const empty = clients.length === 0;
  return html`<fieldset class="client-picker" id="${p}" data-client-picker aria-describedby="${p}-hint">
<legend>Client allow-list</legend>
<p class="hint" id="${p}-hint">Edits, deletes and evidence uploads under a client need that client checked here. Reads, exports and creating new rows do not. With no client checked, the key edits nothing.</p>
${
  empty
    ? html`<p class="hint" data-picker-none-at-all>There are no clients you can see yet. Create clients first; then add them to a key here.</p>`
    : html`<div class="field picker-search"><label for="${p}-search">Find a client</label>
<input id="${p}-search" type="search" data-picker-search autocomplete="off" spellcheck="false" placeholder="Type part of a name" aria-controls="${p}-list" aria-describedby="${p}-count"></div>
<p class="picker-count" id="${p}-count" data-picker-count aria-live="polite">${clients.length} ${clients.length === 1 ? 'client' : 'clients'}, 0 selected</p>
<ul class="picker-list" id="${p}-list" data-picker-list>
${clients.map((c) => html`<li><label class="check"><input type="checkbox" name="clientIds" value="${c.id}" data-client-name="${c.name}"> <span>${c.name}</span></label></li>`)}
</ul>
<p class="hint" data-picker-no-match hidden>No client name contains that text.</p>
${options.truncated ? html`<p class="hint">Only the first ${clients.length} clients (by name) are listed.</p>` : ''}`
}
</fieldset>`;
}
