// The workspace pages' only script. The server renders every list; this script performs the
// actions through the JSON endpoints under /api and re-renders lists from their answers.
// Data only ever reaches the page as text (textContent, text nodes, attribute values): never as markup.

class ApiError extends Error {
  constructor(status, code, message, retryAfter) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

/**
 * Calls a JSON endpoint of this service; an answer other than 2xx becomes an ApiError carrying the server's message.
 */
async function callApi(method, path, body) {
  // Why: state-changing calls are refused without X-Requested-With (cross-site request protection).
  const headers = { Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest' };
  const init = { method, headers, credentials: 'same-origin', cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'network', 'The service could not be reached. Check the connection and try again.', null);
  }
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) {
    const error = data?.error ? data.error : {};
    const retryAfter = Number(res.headers.get('Retry-After')) || null;
    let message = error.message || `The request failed (HTTP ${res.status}).`;
    if (res.status === 401 && path !== '/api/auth/login')
      message = 'Your session has ended. Reload the page and sign in again.';
    throw new ApiError(res.status, error.code || 'error', message, retryAfter);
  }
  return data;
}

/** Builds an element; children that are strings become text nodes. */
function el(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of [].concat(children)) {
    if (child !== undefined && child !== null && child !== false) node.append(child);
  }
  return node;
}

const byId = (id) => document.getElementById(id);

/** Shows a message in a role="alert" or role="status" element; clearing first makes a repeat announce again. */
function say(target, text) {
  target.textContent = '';
  if (text) target.textContent = text;
}

/** Runs an action with the form's submit button disabled, so a double click does not submit twice. */
async function whileBusy(form, action) {
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    await action();
  } finally {
    button.disabled = false;
  }
}

// Times are shown in UTC, exactly as the server renders them.
const dateEl = (iso) => el('time', { datetime: iso }, iso.slice(0, 10));
const dateTimeEl = (iso) =>
  iso ? el('time', { datetime: iso }, `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`) : 'never';

/** Replaces a table's rows, or shows the empty-state row. */
function renderRows(table, items, toRow, emptyText) {
  const columns = table.tHead.rows[0].cells.length;
  const rows = items.length
    ? items.map(toRow)
    : [el('tr', { class: 'empty' }, el('td', { colspan: columns }, emptyText))];
  table.tBodies[0].replaceChildren(...rows);
}

// ---------- The one-time secret box ----------

async function copySecret(input, status) {
  try {
    await navigator.clipboard.writeText(input.value);
    say(status, 'Copied to the clipboard.');
  } catch {
    // Why: no clipboard API (or no permission): select the text so Ctrl+C copies it.
    input.focus();
    input.select();
    say(status, 'Selected. Press Ctrl+C (Cmd+C on a Mac) to copy it.');
  }
}

/**
 * Shows a secret (a new key, a generated password) once; it lives only in this box until dismissed or the page is left.
 */
function showSecret(slot, { heading, label, value, warning }) {
  const input = el('input', {
    id: 'secret-value',
    class: 'secret-value',
    readonly: true,
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-describedby': 'secret-warning',
  });
  input.value = value;
  const status = el('p', { class: 'copy-status', role: 'status' });
  const copy = el('button', { type: 'button', class: 'button primary' }, 'Copy');
  const dismiss = el('button', { type: 'button', class: 'button secondary' }, 'I have stored it, hide it');
  copy.addEventListener('click', () => copySecret(input, status));
  dismiss.addEventListener('click', () => slot.replaceChildren());
  slot.replaceChildren(
    el('section', { class: 'secret', 'aria-labelledby': 'secret-heading' }, [
      el('h2', { id: 'secret-heading' }, heading),
      el('label', { for: 'secret-value' }, label),
      el('div', { class: 'row' }, [input, copy]),
      status,
      el('p', { class: 'warning', id: 'secret-warning' }, warning),
      el('div', { class: 'actions' }, dismiss),
    ]),
  );
  input.focus();
  input.select();
}

// ---------- Client names and the client picker ----------

/** Client id -> name, from the hidden directory the server renders on key pages. */
function clientNames() {
  const names = new Map();
  for (const item of document.querySelectorAll('#client-directory [data-client-id]'))
    names.set(item.dataset.clientId, item.textContent);
  return names;
}

/**
 * A server-rendered list of client checkboxes with a search box. Typing narrows the list to the
 * names containing the text (case- and accent-insensitive); checked clients stay checked while hidden.
 */
function clientPicker(fieldset) {
  const search = fieldset.querySelector('[data-picker-search]');
  const count = fieldset.querySelector('[data-picker-count]');
  const noMatch = fieldset.querySelector('[data-picker-no-match]');
  const boxes = [...fieldset.querySelectorAll('input[type="checkbox"][name="clientIds"]')];
  const fold = (text) =>
    text
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();

  function refresh() {
    const wanted = search ? fold(search.value.trim()) : '';
    let shown = 0;
    for (const box of boxes) {
      const visible = !wanted || fold(box.dataset.clientName).includes(wanted);
      box.closest('li').hidden = !visible;
      if (visible) shown += 1;
    }
    if (noMatch) noMatch.hidden = shown > 0;
    const selected = boxes.filter((b) => b.checked).length;
    if (count) {
      const total = `${boxes.length} ${boxes.length === 1 ? 'client' : 'clients'}`;
      say(count, `${wanted ? `${shown} of ${total} shown` : total}, ${selected} selected`);
    }
  }

  search?.addEventListener('input', refresh);
  // Why: Enter in the search box would submit the whole form.
  search?.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') event.preventDefault();
  });
  fieldset.addEventListener('change', refresh);

  return {
    selected: () => boxes.filter((b) => b.checked).map((b) => b.value),
    set(ids) {
      const wanted = new Set(ids);
      for (const box of boxes) box.checked = wanted.has(box.value);
      if (search) search.value = '';
      refresh();
    },
    refresh,
    focus: () => (search ?? boxes[0])?.focus(),
  };
}

// ---------- API key tables (own keys and, for administrators, the organization's) ----------

function clientsCell(clientIds, names, addsCreated) {
  const created =
    addsCreated &&
    el(
      'p',
      { class: 'adds-created' },
      clientIds.length === 0 ? 'the clients it creates' : 'and the clients it creates',
    );
  if (clientIds.length === 0) return created || el('span', { class: 'muted' }, 'none: edits nothing');
  const known = clientIds.filter((id) => names.has(id)).sort((a, b) => names.get(a).localeCompare(names.get(b)));
  const unknown = clientIds.filter((id) => !names.has(id));
  return [
    el('ul', { class: 'names' }, [
      ...known.map((id) => el('li', {}, names.get(id))),
      ...unknown.map((id) =>
        el('li', { class: 'muted', title: id }, 'a client you cannot see (deleted or in the trash)'),
      ),
    ]),
    created,
  ];
}

function keyRow(key, { withOwner, editable, names }) {
  const active = key.state === 'active';
  const edit =
    active &&
    editable &&
    el(
      'button',
      {
        type: 'button',
        class: 'button secondary small',
        'data-action': 'edit-clients',
        'data-id': key.id,
        'data-name': key.name,
        'aria-label': `Edit clients of key ${key.name}`,
      },
      'Edit clients',
    );
  const revoke =
    active &&
    el(
      'button',
      {
        type: 'button',
        class: 'button danger small',
        'data-action': 'revoke',
        'data-id': key.id,
        'data-name': key.name,
        'aria-label': `Revoke key ${key.name}`,
      },
      'Revoke',
    );
  const attributes = {
    'data-id': key.id,
    'data-client-ids': key.clientIds.join(' '),
    'data-adds-created-clients': key.addsCreatedClients ? 'yes' : 'no',
  };
  return el('tr', attributes, [
    withOwner && el('td', {}, [key.ownerName, el('br'), el('span', { class: 'muted' }, key.ownerEmail)]),
    el('td', {}, key.name),
    el('td', { class: 'nowrap' }, el('code', {}, `${key.prefix}…`)),
    el('td', { class: 'nowrap' }, key.scope),
    el('td', {}, clientsCell(key.clientIds, names, key.addsCreatedClients)),
    el('td', {}, el('span', { class: `state state-${key.state}` }, key.state)),
    el('td', {}, dateEl(key.expiresAt)),
    el('td', {}, dateTimeEl(key.lastUsedAt)),
    el('td', { class: 'actions' }, [edit, edit && revoke && ' ', revoke]),
  ]);
}

/** The key table: re-rendering from its endpoint, and its Revoke buttons. */
function keyTable() {
  const table = byId('key-table');
  const error = byId('list-error');
  const status = byId('list-status');
  const orgWide = table.dataset.revokeAction === 'revoke-org-key';
  const listPath = orgWide ? '/api/admin/api-keys' : '/api/profile/api-keys';

  const options = {
    withOwner: table.dataset.withOwner === 'yes',
    editable: table.dataset.editable === 'yes',
    names: clientNames(),
  };

  async function refresh() {
    const keys = await callApi('GET', listPath);
    renderRows(table, keys, (k) => keyRow(k, options), 'No API keys yet.');
  }

  table.addEventListener('click', async (event) => {
    const button = event.target.closest('button[data-action="revoke"]');
    if (!button) return;
    const { id, name } = button.dataset;
    if (!window.confirm(`Revoke the key "${name}"? Anything using it gets 401 from now on. This cannot be undone.`))
      return;
    say(error, '');
    say(status, '');
    button.disabled = true;
    try {
      if (orgWide) await callApi('POST', `/api/admin/api-keys/${encodeURIComponent(id)}/revoke`);
      else await callApi('DELETE', `/api/profile/api-keys/${encodeURIComponent(id)}`);
      await refresh();
      say(status, `Key "${name}" revoked.`);
      status.focus();
    } catch (err) {
      say(error, err.message);
      button.disabled = false;
    }
  });

  return { refresh, error, status, table };
}

// ---------- Pages ----------

function describeWait(seconds) {
  if (!seconds) return 'a few minutes';
  if (seconds < 90) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

function initSignIn() {
  const form = byId('sign-in-form');
  const error = byId('form-error');
  const email = byId('email');
  const password = byId('password');
  // Hosted only: the organization to sign in to (an address may have accounts in several).
  const organization = document.getElementById('organization');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    say(error, '');
    await whileBusy(form, async () => {
      try {
        const body = { email: email.value.trim(), password: password.value };
        if (organization) body.organization = organization.value.trim();
        await callApi('POST', '/api/auth/login', body);
        // Back where the visitor was sent from (a path of this service only), else the reports.
        const next = new URLSearchParams(window.location.search).get('next') ?? '';
        window.location.assign(/^\/(?!\/)[\w\-/?=&%.]*$/.test(next) ? next : '/reports');
      } catch (err) {
        if (err.status === 401)
          say(error, organization ? 'Organization, email or password is wrong.' : 'Email or password is wrong.');
        else if (err.status === 429)
          say(error, `Too many failed sign-ins. Try again in ${describeWait(err.retryAfter)}.`);
        else say(error, err.message);
        password.focus();
        password.select();
      }
    });
  });
}

/** The create-key form's body, or a message saying what to fix. */
function readKeyForm(picker) {
  const name = byId('key-name').value.trim();
  if (!name) return { problem: 'Give the key a name, for example where it will be used.', field: byId('key-name') };
  const body = { name, scope: byId('key-scope').value };
  const expires = byId('key-expires').value;
  // Why: the chosen day counts from midnight UTC, which is how the page shows expiry dates.
  if (expires) body.expiresAt = `${expires}T00:00:00.000Z`;
  // No client checked: the key edits nothing until clients are added (the server's default too).
  body.clientIds = picker ? picker.selected() : [];
  body.addsCreatedClients = byId('create-adds-created-clients').checked;
  return { body };
}

/** The "Edit clients" dialog of the own-keys page: the picker, set from the row, saved with PATCH. */
function editClientsDialog(keys) {
  const dialog = byId('edit-clients-dialog');
  if (!dialog) return;
  const form = byId('edit-clients-form');
  const error = byId('edit-clients-error');
  const heading = byId('edit-clients-heading');
  const fieldset = dialog.querySelector('[data-client-picker]');
  const picker = fieldset.querySelector('input[type="checkbox"]') ? clientPicker(fieldset) : null;
  const addsCreated = byId('edit-adds-created-clients');
  let editing = null;

  keys.table.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-action="edit-clients"]');
    if (!button) return;
    const row = button.closest('tr');
    editing = { id: button.dataset.id, name: button.dataset.name, opener: button };
    heading.textContent = `Client allow-list of key "${editing.name}"`;
    say(error, '');
    picker?.set((row.dataset.clientIds || '').split(' ').filter(Boolean));
    addsCreated.checked = row.dataset.addsCreatedClients === 'yes';
    dialog.showModal();
    picker?.focus();
  });

  dialog.querySelector('[data-action="cancel-edit-clients"]').addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => editing?.opener?.isConnected && editing.opener.focus());

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!editing) return;
    say(error, '');
    const { id, name } = editing;
    const clientIds = picker ? picker.selected() : [];
    await whileBusy(form, async () => {
      try {
        await callApi('PATCH', `/api/profile/api-keys/${encodeURIComponent(id)}`, {
          clientIds,
          addsCreatedClients: addsCreated.checked,
        });
        dialog.close();
        await keys.refresh();
        say(
          keys.status,
          `Key "${name}" now edits ` +
            `${clientIds.length === 0 ? 'no client' : clientIds.length === 1 ? '1 client' : `${clientIds.length} clients`}` +
            `${addsCreated.checked ? ', and the clients it creates' : ''}.`,
        );
        keys.status.focus();
      } catch (err) {
        say(error, err.message);
      }
    });
  });
}

function initApiKeys() {
  const form = byId('create-key-form');
  const error = byId('create-error');
  const keys = keyTable();
  const fieldset = form.querySelector('[data-client-picker]');
  const picker = fieldset?.querySelector('input[type="checkbox"]') ? clientPicker(fieldset) : null;
  editClientsDialog(keys);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    say(error, '');
    const { body, problem, field } = readKeyForm(picker);
    if (problem) {
      say(error, problem);
      field.focus();
      return;
    }
    await whileBusy(form, async () => {
      try {
        const created = await callApi('POST', '/api/profile/api-keys', body);
        form.reset();
        picker?.set([]);
        showSecret(byId('secret-slot'), {
          heading: `Key "${created.apiKey.name}" created`,
          label: 'Your new API key',
          value: created.key,
          warning: 'Copy it now and store it somewhere safe: it will not be shown again.',
        });
      } catch (err) {
        say(error, err.message);
        return;
      }
      try {
        await keys.refresh();
      } catch (err) {
        say(keys.error, err.message);
      }
    });
  });
}

function userRow(user, selfId, roles) {
  const isSelf = user.id === selfId;
  const editable = user.active && !isSelf;
  const roleCell = editable
    ? [
        el('label', { class: 'visually-hidden', for: `role-${user.id}` }, `Role of ${user.name}`),
        el(
          'select',
          { id: `role-${user.id}`, 'data-role-for': user.id },
          roles.map((r) => el('option', { value: r, selected: r === user.role }, r)),
        ),
        ' ',
        el(
          'button',
          {
            type: 'button',
            class: 'button secondary small',
            'data-action': 'save-role',
            'data-id': user.id,
            'aria-label': `Save role of ${user.name}`,
          },
          'Save role',
        ),
      ]
    : user.role;
  const state = user.active ? 'active' : 'deactivated';
  return el('tr', { 'data-id': user.id }, [
    el('td', {}, [user.name, isSelf && ' ', isSelf && el('span', { class: 'muted' }, '(you)')]),
    el('td', {}, user.email),
    el('td', {}, roleCell),
    el('td', {}, el('span', { class: `state state-${state}` }, state)),
    el('td', {}, dateEl(user.createdAt)),
    el(
      'td',
      {},
      editable &&
        el(
          'button',
          {
            type: 'button',
            class: 'button danger small',
            'data-action': 'deactivate',
            'data-id': user.id,
            'data-name': user.name,
            'aria-label': `Deactivate ${user.name}`,
          },
          'Deactivate',
        ),
    ),
  ]);
}

function initAdmin() {
  const selfId = document.body.dataset.userId;
  const roles = [...byId('user-role').options].map((o) => o.value);
  const form = byId('create-user-form');
  const formError = byId('create-user-error');
  const table = byId('user-table');
  const error = byId('users-error');
  const status = byId('users-status');
  const keys = keyTable();

  async function refreshUsers() {
    const users = await callApi('GET', '/api/admin/users');
    renderRows(table, users, (u) => userRow(u, selfId, roles), 'No users.');
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    say(formError, '');
    await whileBusy(form, async () => {
      try {
        const created = await callApi('POST', '/api/admin/users', {
          email: byId('user-email').value.trim(),
          name: byId('user-name').value.trim(),
          role: byId('user-role').value,
        });
        form.reset();
        showSecret(byId('secret-slot'), {
          heading: `User ${created.user.email} created`,
          label: `Password for ${created.user.name}`,
          value: created.password,
          warning: 'Give this password to the user now: it will not be shown again.',
        });
        await refreshUsers();
      } catch (err) {
        say(formError, err.message);
      }
    });
  });

  table.addEventListener('click', async (event) => {
    const button = event.target.closest('button[data-action]');
    if (!button) return;
    const { id, name } = button.dataset;
    say(error, '');
    say(status, '');
    try {
      if (button.dataset.action === 'save-role') {
        const role = table.querySelector(`select[data-role-for="${CSS.escape(id)}"]`).value;
        button.disabled = true;
        const user = await callApi('PATCH', `/api/admin/users/${encodeURIComponent(id)}`, { role });
        await refreshUsers();
        say(status, `${user.name} is now ${user.role}.`);
      } else if (button.dataset.action === 'deactivate') {
        if (!window.confirm(`Deactivate ${name}? They are signed out and all their API keys are revoked at once.`))
          return;
        button.disabled = true;
        await callApi('POST', `/api/admin/users/${encodeURIComponent(id)}/deactivate`);
        await Promise.all([refreshUsers(), keys.refresh()]);
        say(status, `${name} deactivated; their API keys are revoked.`);
      } else {
        return;
      }
      status.focus();
    } catch (err) {
      say(error, err.message);
      button.disabled = false;
    }
  });
}

function initSignOut() {
  const button = document.querySelector('[data-action="sign-out"]');
  if (!button) return;
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await callApi('POST', '/api/auth/logout');
    } catch {
      // Why: a session that already ended needs no sign-out; the sign-in page shows where things stand.
    }
    window.location.assign('/');
  });
}

const PAGES = { 'sign-in': initSignIn, 'api-keys': initApiKeys, admin: initAdmin };

initSignOut();
PAGES[document.body.dataset.page]?.();
