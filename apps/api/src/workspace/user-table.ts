import { ROLES, type SessionPrincipal } from '@service/auth';
import type { presentUser } from '../identity/identity-schemas.ts';
import { renderDate } from './format-timestamp.ts';
import { html, type SafeHtml } from './html-template.ts';

export type PresentedUser = ReturnType<typeof presentUser>;

function renderRoleCell(user: PresentedUser, editable: boolean): SafeHtml {
  if (!editable) return html`${user.role}`;
  const options = ROLES.map((r) => html`<option value="${r}"${r === user.role ? html` selected` : ''}>${r}</option>`);
  return html`<label class="visually-hidden" for="role-${user.id}">Role of ${user.name}</label>
<select id="role-${user.id}" data-role-for="${user.id}">${options}</select>
<button type="button" class="button secondary small" data-action="save-role" data-id="${user.id}" aria-label="Save role of ${user.name}">Save role</button>`;
}

function renderRow(user: PresentedUser, self: SessionPrincipal): SafeHtml {
  const isSelf = user.id === self.userId;
  // Why: the signed-in administrator cannot demote or deactivate themselves from here; doing it
  // by accident would lock them out of this very page.
  const editable = user.active && !isSelf;
  return html`<tr data-id="${user.id}">
<td>${user.name}${isSelf ? html` <span class="muted">(you)</span>` : ''}</td>
<td>${user.email}</td>
<td>${renderRoleCell(user, editable)}</td>
<td><span class="state state-${user.active ? 'active' : 'deactivated'}">${user.active ? 'active' : 'deactivated'}</span></td>
<td>${renderDate(user.createdAt)}</td>
<td>${editable ? html`<button type="button" class="button danger small" data-action="deactivate" data-id="${user.id}" data-name="${user.name}" aria-label="Deactivate ${user.name}">Deactivate</button>` : ''}</td>
</tr>`;
}

/** The organization's users; workspace.js re-renders its body in the same shape. */
export function renderUserTable(users: PresentedUser[], self: SessionPrincipal): SafeHtml {
  const headers = ['Name', 'Email', 'Role', 'State', 'Created', 'Actions'];
  return html`<div class="table-scroll"><table class="data" id="user-table">
<caption class="visually-hidden">Users of the organization</caption>
<thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>
${users.map((u) => renderRow(u, self))}
</tbody>
</table></div>`;
}
