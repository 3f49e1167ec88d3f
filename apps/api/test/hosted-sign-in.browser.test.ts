import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserRepository } from '@service/auth';
import { provisionOrganization } from '@service/tenancy';
import { launchChromium, skipBrowserTests } from './support/browser.ts';
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp } from './support/start-test-app.ts';

// The hosted sign-in page in a real browser: it asks for the organization, takes it from the
// sign-in link, and signs one e-mail address in to the account of the organization named. Beta is
// provisioned for real (its own tenant database on the test server), because the pages after
// sign-in read the organization's workspace.

const SHARED = 'shared@example.com';
const PASSWORDS = { alpha: 'alpha-shared-password-1', beta: 'beta-shared-password-1' };
let app: TestApp;
let betaDatabase: string | null = null;

beforeAll(async () => {
  app = await startTestApp({ SERVICE_EDITION: 'hosted' }, { evaluation: false });
  const users = new UserRepository(app.dbs.controlPlane);
  const alphaId = (await app.dbs.controlPlane('organizations').first('id')).id as string;
  await users.create({
    organizationId: alphaId,
    email: SHARED,
    name: 'Alpha Shared',
    role: 'member',
    password: PASSWORDS.alpha,
  });
  const beta = await provisionOrganization(
    {
      controlPlane: app.dbs.controlPlane,
      topology: app.tenants.topology!,
      loadLibrary: async () => {},
      createAdministrator: async ({ organizationId, email }) => {
        await users.create({ organizationId, email, name: 'Beta Shared', role: 'admin', password: PASSWORDS.beta });
      },
    },
    { name: 'Beta', slug: 'beta', plan: 'business', server: 'default', adminEmail: SHARED },
  );
  betaDatabase = beta.organization.tenantDatabase;
});
afterAll(async () => {
  await app?.stop();
  if (betaDatabase) {
    const client = new pg.Client({ connectionString: `${app.databases.serverUrl}/postgres` });
    await client.connect();
    try {
      await client.query(`drop database if exists ${pg.escapeIdentifier(betaDatabase)} with (force)`);
    } finally {
      await client.end();
    }
  }
});

describe.skipIf(skipBrowserTests)('hosted sign-in in headless Chromium', () => {
  let browser: Browser;
  const problems: string[] = [];
  // Why: the wrong-organization step provokes a 401 on purpose; Chromium logs it.
  const expectedFailures = /^Failed to load resource: the server responded with a status of 401\b/;

  async function newPage(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !expectedFailures.test(msg.text())) problems.push(`console: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    return page;
  }

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('signs the address in to the organization of the sign-in link', async () => {
    const page = await newPage();
    await page.goto(`${app.url}/?organization=beta`);
    expect(await page.getByLabel('Organization').inputValue()).toBe('beta');
    await page.getByLabel('Email').fill(SHARED);
    await page.getByLabel('Password').fill(PASSWORDS.beta);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.url}/reports`);
    expect(await page.locator('.who-name').textContent()).toBe('Beta Shared');
    // Beta's administrator sees the link to give Beta's users.
    await page.goto(`${app.url}/admin`);
    expect(await page.locator('#create-user-form .hint').textContent()).toContain('/?organization=beta');
  });

  it('signs the same address in to the other organization typed in, after a wrong one', async () => {
    const page = await newPage();
    await page.goto(`${app.url}/`);
    await page.getByLabel('Organization').fill('gamma');
    await page.getByLabel('Email').fill(SHARED);
    await page.getByLabel('Password').fill(PASSWORDS.alpha);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#form-error', { hasText: 'Organization, email or password is wrong.' }).waitFor();

    await page.getByLabel('Organization').fill('Workspace');
    await page.getByLabel('Password').fill(PASSWORDS.alpha);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.url}/reports`);
    expect(await page.locator('.who-name').textContent()).toBe('Alpha Shared');
  });

  it('signs in the first organization’s administrator', async () => {
    const page = await newPage();
    await page.goto(`${app.url}/?organization=workspace`);
    await page.getByLabel('Email').fill('admin@example.com');
    await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.url}/reports`);
    expect(await page.locator('.who .badge').textContent()).toBe('admin');
    expect(problems).toEqual([]);
  });
});
