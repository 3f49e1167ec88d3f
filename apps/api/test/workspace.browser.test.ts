import { request } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipBrowserTests } from './support/browser.ts';
import { createActor, signIn } from './support/identity-fixtures.ts';
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp } from './support/start-test-app.ts';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
const HTML_NAME = '<img src=x onerror=alert(1)>';
const ESCAPED_NAME = '&lt;img src=x onerror=alert(1)&gt;';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${app.url}${path}`, { headers, redirect: 'manual' });
/** node:http, because fetch adds `Cache-Control: no-cache` to conditional requests, which forbids a 304. */
const statusOfConditionalGet = (path: string, etag: string) =>
  new Promise<number>((resolve, reject) => {
    request(`${app.url}${path}`, { headers: { 'if-none-match': etag } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    })
      .on('error', reject)
      .end();
  });
const restCall = (key: string, method = 'GET', body?: unknown, path = '/clients') =>
  fetch(`${app.url}/rest/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

describe('workspace pages over plain HTTP', () => {
  it('sends the sign-in page with a strict CSP, no caching and no referrer', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(CSP);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const text = await res.text();
    expect(text).toContain('<form id="sign-in-form"');
    expect(text).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(text).not.toMatch(/\sstyle=/);
  });

  it('sends visitors without a session to the sign-in page, and signed-in users from there to their keys', async () => {
    for (const path of ['/profile/api-keys', '/admin']) {
      const res = await get(path);
      expect(res.status, path).toBe(302);
      expect(res.headers.get('location'), path).toBe('/');
      expect(res.headers.get('cache-control'), path).toBe('no-store');
    }
    const admin = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const res = await get('/', { cookie: admin.cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/reports');
  });

  it('serves only allow-listed assets, with their content types and nosniff', async () => {
    const css = await get('/workspace/assets/workspace.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('x-content-type-options')).toBe('nosniff');
    const js = await get('/workspace/assets/workspace.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await statusOfConditionalGet('/workspace/assets/workspace.js', js.headers.get('etag')!)).toBe(304);
    for (const name of [
      'workspace-pages.ts',
      '..%2Fworkspace-pages.ts',
      '..%2F..%2Fapp.ts',
      'constructor',
      'missing.css',
    ]) {
      expect((await get(`/workspace/assets/${name}`)).status, name).toBe(404);
    }
  });

  it('answers a non-administrator at /admin with a 403 page', async () => {
    const member = await createActor(app, { role: 'member' });
    const session = await signIn(app, member.user.email, 'a-long-test-password');
    const res = await get('/admin', { cookie: session.cookie });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(CSP);
    const text = await res.text();
    expect(text).toContain('Administrators only');
    expect(text).not.toContain('href="/admin"');
  });

  it('renders names with HTML in them as text on every page', async () => {
    const admin = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD);
    const created = await admin.post('/api/admin/users', {
      email: 'html-name@example.com',
      name: HTML_NAME,
      role: 'member',
      password: 'a-long-test-password-2',
    });
    expect(created.status).toBe(201);
    const user = await signIn(app, 'html-name@example.com', 'a-long-test-password-2');
    expect((await user.post('/api/profile/api-keys', { name: HTML_NAME, scope: 'read-only' })).status).toBe(201);
    for (const [path, cookie] of [
      ['/profile/api-keys', user.cookie],
      ['/admin', admin.cookie],
    ] as const) {
      const text = await (await get(path, { cookie })).text();
      expect(text, path).toContain(ESCAPED_NAME);
      expect(text, path).not.toContain('<img');
    }
  });
});

describe.skipIf(skipBrowserTests)('workspace in headless Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let ciKey: string;
  const requested: string[] = [];
  const problems: string[] = [];
  // Why: the sign-in, allow-list and revocation steps provoke these answers on purpose; Chromium logs each one.
  const expectedFailures = /^Failed to load resource: the server responded with a status of (400|401|429)\b/;

  /** Records every request and every console error, page error and CSP violation of a page. */
  async function watch(p: Page): Promise<Page> {
    p.on('request', (req) => requested.push(req.url()));
    p.on('console', (msg) => {
      if (msg.type() === 'error' && !expectedFailures.test(msg.text())) problems.push(`console: ${msg.text()}`);
    });
    p.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    await p.addInitScript({
      content:
        "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP " +
        "violation: ' + e.violatedDirective + ' ' + e.blockedURI));",
    });
    return p;
  }

  /** The row of the key named exactly `name` on the API keys page. */
  const keyRow = (name: string) =>
    page.locator('#key-table tbody tr', {
      has: page.locator('td:nth-child(1)', { hasText: new RegExp(`^${escapeRegExp(name)}$`) }),
    });
  const alertText = async (id: string) => (await page.locator(`#${id}`).textContent())?.trim();

  beforeAll(async () => {
    browser = await launchChromium();
    context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    page = await watch(await context.newPage());
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('signs in, after showing an error for a wrong password', async () => {
    await page.goto(`${app.url}/`);
    await page.getByLabel('Email').fill('admin@example.com');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#form-error', { hasText: 'Email or password is wrong.' }).waitFor();

    await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.url}/reports`);
    await page.goto(`${app.url}/profile/api-keys`);
    expect(await page.locator('.who-name').textContent()).toBe('Administrator');
    expect(await page.locator('.who .badge').textContent()).toBe('admin');
    expect(await page.getByRole('link', { name: 'Administration' }).count()).toBe(1);
  });

  it('creates a read-write key and shows its value once', async () => {
    const oneYear = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
    expect(await page.getByLabel('Expires on (UTC)').inputValue()).toBe(oneYear);
    await page.getByLabel('Name', { exact: true }).fill('CI');
    await page.getByLabel('Scope').selectOption('read-write');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.locator('#secret-value');
    await secret.waitFor();
    ciKey = await secret.inputValue();
    expect(ciKey).toMatch(/^service_sk_/);
    expect(await page.locator('.secret').textContent()).toContain('it will not be shown again');

    await page.getByRole('button', { name: 'Copy' }).click();
    await page.locator('.copy-status', { hasText: /Copied|Selected/ }).waitFor();
    if ((await page.locator('.copy-status').textContent()) === 'Copied to the clipboard.') {
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(ciKey);
    }

    const row = keyRow('CI');
    await row.waitFor();
    expect(await row.textContent()).toContain('read-write');
    expect(await row.textContent()).toContain('none: edits nothing');
    expect(await row.locator('.state').textContent()).toBe('active');
    expect(await page.locator('#key-table').textContent()).not.toContain(ciKey);
    const prefix = (await row.locator('code').textContent())!;
    expect(prefix).toBe(`${ciKey.slice(0, 'service_sk_'.length + 6)}…`);
    await page.screenshot({ path: '/tmp/workspace-keys.png', fullPage: true });
  });

  it('never shows the value again after a reload', async () => {
    await page.reload();
    await keyRow('CI').waitFor();
    expect(await page.locator('#secret-value').count()).toBe(0);
    expect(await page.content()).not.toContain(ciKey);
    const served = await context.request.get(`${app.url}/profile/api-keys`);
    expect(served.status()).toBe(200);
    expect(await served.text()).not.toContain(ciKey);
  });

  it('the key works for a real REST call from outside the browser', async () => {
    expect((await restCall(ciKey)).status).toBe(200);
    expect((await restCall(ciKey, 'POST', { name: 'Acme via CI key' })).status).toBe(201);
    await page.reload();
    expect(await keyRow('CI').locator('td:nth-child(7)').textContent()).toMatch(/UTC$/);
  });

  it('picks the clients of a new key by name, searchable; the key edits those clients only', async () => {
    const ids: Record<string, string> = {};
    for (const name of ['Acme Corp', 'Globex', 'Initech Ltd', 'Ümlaut GmbH']) {
      const res = await restCall(ciKey, 'POST', { name });
      expect(res.status).toBe(201);
      ids[name] = ((await res.json()) as { id: string }).id;
    }
    await page.reload();
    const picker = page.locator('#create-clients');
    await page.getByLabel('Name', { exact: true }).fill('Scoped');
    await page.getByLabel('Scope').selectOption('read-write');
    await picker.getByLabel('Find a client').fill('glob');
    expect(await picker.locator('[data-picker-count]').textContent()).toMatch(/^1 of \d+ clients shown, 0 selected$/);
    expect(await picker.getByLabel('Acme Corp').isVisible()).toBe(false);
    await picker.getByLabel('Globex').check();
    await page.screenshot({ path: '/tmp/workspace-client-picker.png', fullPage: true });
    // Accents and case do not matter when searching.
    await picker.getByLabel('Find a client').fill('umlaut');
    expect(await picker.getByLabel('Ümlaut GmbH').isVisible()).toBe(true);
    await picker.getByLabel('Find a client').fill('zzz');
    await picker.locator('[data-picker-no-match]').waitFor();
    await picker.getByLabel('Find a client').fill('');
    expect(await picker.locator('[data-picker-count]').textContent()).toMatch(/^\d+ clients, 1 selected$/);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#secret-value').waitFor();
    const scopedKey = await page.locator('#secret-value').inputValue();
    expect(await alertText('create-error')).toBe('');
    expect(await keyRow('Scoped').locator('td:nth-child(4) li').allTextContents()).toEqual(['Globex']);
    // The form is ready for the next key: nothing checked, nothing filtered.
    expect(await picker.getByLabel('Globex').isChecked()).toBe(false);
    await page.getByRole('button', { name: 'I have stored it, hide it' }).click();
    expect(await page.locator('#secret-value').count()).toBe(0);

    const allowed = await restCall(scopedKey, 'PATCH', { website: 'https://globex.example' }, `/clients/${ids.Globex}`);
    expect(allowed.status, await allowed.clone().text()).toBe(200);
    const denied = await restCall(
      scopedKey,
      'PATCH',
      { website: 'https://acme.example' },
      `/clients/${ids['Acme Corp']}`,
    );
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('client_not_allowed');
    // A key with no clients (the default) edits nothing, though it may create.
    expect(
      (await restCall(ciKey, 'PATCH', { website: 'https://acme.example' }, `/clients/${ids['Acme Corp']}`)).status,
    ).toBe(403);
  });

  it('changes the clients of an existing key by name', async () => {
    await page.getByRole('button', { name: 'Edit clients of key Scoped' }).click();
    const dialog = page.locator('#edit-clients-dialog');
    await dialog.waitFor();
    expect(await dialog.locator('#edit-clients-heading').textContent()).toBe('Client allow-list of key "Scoped"');
    expect(await dialog.getByLabel('Globex').isChecked()).toBe(true);
    expect(await dialog.getByLabel('Acme Corp').isChecked()).toBe(false);
    await dialog.getByLabel('Find a client').fill('ACME');
    await dialog.getByLabel('Acme Corp').check();
    await page.screenshot({ path: '/tmp/workspace-edit-clients.png' });
    await dialog.getByRole('button', { name: 'Save clients' }).click();
    await page.locator('#list-status', { hasText: 'Key "Scoped" now edits 2 clients.' }).waitFor();
    expect(await dialog.isVisible()).toBe(false);
    expect(await keyRow('Scoped').locator('td:nth-child(4) li').allTextContents()).toEqual(['Acme Corp', 'Globex']);
    await page.reload();
    expect(await keyRow('Scoped').locator('td:nth-child(4) li').allTextContents()).toEqual(['Acme Corp', 'Globex']);
    const keys = (await (await context.request.get(`${app.url}/api/profile/api-keys`)).json()) as Array<{
      name: string;
      clientIds: string[];
    }>;
    expect(keys.find((k) => k.name === 'Scoped')!.clientIds).toHaveLength(2);

    // Cancelling changes nothing.
    await page.getByRole('button', { name: 'Edit clients of key Scoped' }).click();
    await dialog.getByLabel('Globex').uncheck();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await keyRow('Scoped').locator('td:nth-child(4) li').allTextContents()).toEqual(['Acme Corp', 'Globex']);
  });

  it('makes a key for a CI job that adds the clients it creates to its allow-list', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Nightly');
    await page.getByLabel('Scope', { exact: true }).selectOption('read-write');
    await page.locator('#create-key-form').getByLabel('Add the clients this key creates to its allow-list').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#secret-value').waitFor();
    const nightlyKey = await page.locator('#secret-value').inputValue();
    expect(await keyRow('Nightly').locator('td:nth-child(4)').textContent()).toBe('the clients it creates');
    const created = await restCall(nightlyKey, 'POST', { name: 'Nightly customer' });
    expect(created.status).toBe(201);
    await page.reload();
    const clients = keyRow('Nightly').locator('td:nth-child(4)');
    expect(await clients.locator('li').allTextContents()).toEqual(['Nightly customer']);
    expect(await clients.locator('.adds-created').textContent()).toBe('and the clients it creates');
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.screenshot({ path: '/tmp/workspace-ci-key.png', fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: '/tmp/workspace-ci-key-narrow.png', fullPage: true });
    await page.setViewportSize({ width: 1366, height: 768 });
    // The option can be turned off in the same dialog as the clients.
    await page.getByRole('button', { name: 'Edit clients of key Nightly' }).click();
    const dialog = page.locator('#edit-clients-dialog');
    const option = dialog.getByLabel('Add the clients this key creates to its allow-list');
    expect(await option.isChecked()).toBe(true);
    await option.uncheck();
    await dialog.getByRole('button', { name: 'Save clients' }).click();
    await page.locator('#list-status', { hasText: 'Key "Nightly" now edits 1 client.' }).waitFor();
    expect(await keyRow('Nightly').locator('.adds-created').count()).toBe(0);
  });

  it('revokes the key in the page; the next call answers 401', async () => {
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke key CI' }).click();
    await page.locator('#list-status', { hasText: 'Key "CI" revoked.' }).waitFor();
    expect(await keyRow('CI').locator('.state').textContent()).toBe('revoked');
    expect(await keyRow('CI').getByRole('button').count()).toBe(0);
    expect((await restCall(ciKey)).status).toBe(401);
  });

  it('renders a key name with HTML as text, both re-rendered and server-rendered', async () => {
    await page.getByLabel('Name', { exact: true }).fill(HTML_NAME);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#secret-value').waitFor();
    await keyRow(HTML_NAME).waitFor();
    expect(await page.locator('img').count()).toBe(0);
    await page.reload();
    expect(await keyRow(HTML_NAME).count()).toBe(1);
    expect(await page.locator('img').count()).toBe(0);
  });

  it('lets an administrator create a user (password shown once), change the role and deactivate them', async () => {
    await page.getByRole('link', { name: 'Administration' }).click();
    await page.waitForURL(`${app.url}/admin`);
    const adminKeys = page.locator('#key-table tbody tr', { hasText: 'admin@example.com' });
    expect(await adminKeys.filter({ hasText: 'CI' }).locator('.state').allTextContents()).toContain('revoked');

    await page.getByLabel('Email').fill('tess@example.com');
    await page.getByLabel('Name', { exact: true }).fill(HTML_NAME);
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.locator('#secret-value').waitFor();
    const password = await page.locator('#secret-value').inputValue();
    expect(password.length).toBeGreaterThanOrEqual(12);
    const userRow = page.locator('#user-table tbody tr', { hasText: 'tess@example.com' });
    await userRow.waitFor();
    expect(await userRow.locator('td:nth-child(1)').textContent()).toBe(HTML_NAME);
    expect(await page.locator('img').count()).toBe(0);

    const tess = await signIn(app, 'tess@example.com', password);
    await page.reload();
    expect(await page.content()).not.toContain(password);
    expect(await page.locator('img').count()).toBe(0);

    await userRow.getByRole('combobox').selectOption('viewer');
    await userRow.getByRole('button', { name: 'Save role' }).click();
    await page.locator('#users-status', { hasText: 'is now viewer' }).waitFor();
    await page.reload();
    expect(await userRow.getByRole('combobox').inputValue()).toBe('viewer');

    page.once('dialog', (dialog) => void dialog.accept());
    await userRow.getByRole('button', { name: /^Deactivate/ }).click();
    await page.locator('#users-status', { hasText: 'deactivated' }).waitFor();
    expect(await userRow.locator('.state').textContent()).toBe('deactivated');
    expect(await userRow.getByRole('button').count()).toBe(0);
    expect((await tess.get('/api/auth/me')).status).toBe(401);
    const login = await fetch(`${app.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' },
      body: JSON.stringify({ email: 'tess@example.com', password }),
    });
    expect(login.status).toBe(401);
  });

  it("lets an administrator revoke another user's key", async () => {
    const member = await createActor(app, { role: 'member' });
    expect((await member.api.get('/clients')).status).toBe(200);
    await page.reload();
    page.once('dialog', (dialog) => void dialog.accept());
    const row = page.locator('#key-table tbody tr', { hasText: member.user.email });
    await row.getByRole('button', { name: 'Revoke key test key' }).click();
    await page.locator('#list-status', { hasText: 'revoked' }).waitFor();
    expect(await row.locator('.state').textContent()).toBe('revoked');
    expect((await member.api.get('/clients')).status).toBe(401);
  });

  it('shows the retry time after too many failed sign-ins', async () => {
    const other = await browser.newContext();
    const signInPage = await watch(await other.newPage());
    await signInPage.goto(`${app.url}/`);
    await signInPage.getByLabel('Email').fill('nobody@example.com');
    const messages: string[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      await signInPage.getByLabel('Password').fill(`guess-${attempt}`);
      await Promise.all([
        signInPage.waitForResponse((r) => r.url().endsWith('/api/auth/login')),
        signInPage.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      await signInPage.locator('#form-error:not(:empty)').waitFor();
      messages.push((await signInPage.locator('#form-error').textContent())!);
    }
    expect(messages.slice(0, 5)).toEqual(Array(5).fill('Email or password is wrong.'));
    expect(messages[5]).toMatch(/^Too many failed sign-ins\. Try again in \d+ (seconds|minutes)\.$/);
    await other.close();
  });

  it('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${app.url}/`);
    await page.goto(`${app.url}/profile/api-keys`);
    expect(page.url()).toBe(`${app.url}/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('made no request outside the service and logged no errors or CSP violations', () => {
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((u) => !u.startsWith(`${app.url}/`) && !u.startsWith('data:'))).toEqual([]);
    expect(problems).toEqual([]);
  });
});
