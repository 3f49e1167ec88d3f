import { ROLES, type SessionPrincipal } from '@service/auth';
import type { FileStoreState } from '../files/file-store-status.ts';
import { renderClientDirectory, type ClientChoice } from './client-picker.ts';
import { renderFileStoreCard } from './file-store-card.ts';
import { html, type SafeHtml } from './html-template.ts';
import { renderKeyTable, type PresentedApiKey } from './key-table.ts';
import { renderPage } from './page-shell.ts';
import { renderUserTable, type PresentedUser } from './user-table.ts';

/** `signInSlug`: hosted, the organization users name when they sign in (shown with the sign-in link). */
function renderCreateUserForm(signInSlug: string | null): SafeHtml {
  return html`<section class="card" aria-labelledby="create-user-heading">
<h3 id="create-user-heading">Create a user</h3>
<form id="create-user-form" method="post">
<div class="grid">
<div class="field"><label for="user-email">Email</label>
<input id="user-email" name="email" type="email" required maxlength="320" autocomplete="off"></div>
<div class="field"><label for="user-name">Name</label>
<input id="user-name" name="name" required maxlength="200" autocomplete="off"></div>
<div class="field"><label for="user-role">Role</label>
<select id="user-role" name="role">${ROLES.map((r) => html`<option value="${r}"${r === 'member' ? html` selected` : ''}>${r}</option>`)}</select></div>
</div>
<p class="hint">A password is generated and shown once; give it to the user${
    signInSlug
      ? html` with the sign-in link <a href="/?organization=${signInSlug}">/?organization=${signInSlug}</a> (organization <span class="mono">${signInSlug}</span>)`
      : ''
  }.</p>
<p class="alert" role="alert" id="create-user-error"></p>
<button type="submit" class="button primary">Create user</button>
</form>
</section>`;
}

export function renderAdminPage(options: {
  session: SessionPrincipal;
  keys: PresentedApiKey[];
  users: PresentedUser[];
  clients: ClientChoice[];
  /** Hosted: the organization's slug, which its users sign in with. */
  signInSlug?: string | null;
  /** Where files are kept and whether the store answers. */
  fileStore: FileStoreState;
}): SafeHtml {
  const { session, keys, users, clients } = options;
  const body = html`<h1>Administration</h1>
<section aria-labelledby="users-heading">
<h2 id="users-heading">Users</h2>
${renderCreateUserForm(options.signInSlug ?? null)}
<div id="secret-slot"></div>
<p class="alert" role="alert" id="users-error"></p>
<p class="status" role="status" id="users-status" tabindex="-1"></p>
${renderUserTable(users, session)}
</section>
<section aria-labelledby="org-keys-heading">
<h2 id="org-keys-heading">API keys of the organization</h2>
<p class="alert" role="alert" id="list-error"></p>
<p class="status" role="status" id="list-status" tabindex="-1"></p>
${renderKeyTable(keys, { caption: 'Every API key of the organization', withOwner: true, revokeAction: 'revoke-org-key', clients, editable: false })}
</section>
${renderClientDirectory(clients)}
${renderFileStoreCard(options.fileStore)}`;
  return renderPage({ title: 'Administration', page: 'admin', session, body });
}

/** What a signed-in user who is not an administrator sees at /admin. */
export function renderAdminForbiddenPage(session: SessionPrincipal): SafeHtml {
  const body = html`<section class="card narrow">
<h1>Administrators only</h1>
<p>Your role is ${session.role}. Ask an administrator of your organization if you need to manage users or other people's keys.</p>
<p><a href="/profile/api-keys">Back to your API keys</a></p>
</section>`;
  return renderPage({ title: 'Administrators only', page: 'forbidden', session, body });
}
