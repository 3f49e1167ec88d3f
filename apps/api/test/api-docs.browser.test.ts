import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROCESS_START_MS } from '@service/test-lanes';
import { launchChromium, skipBrowserTests } from './support/browser.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let browser: Browser;
/** The reference renders a megabyte document in the page: as long as a browser takes to be ready. */
const RENDERED = { timeout: PROCESS_START_MS };

describe.skipIf(skipBrowserTests)('/api-docs in a real browser', () => {
  beforeAll(async () => {
    app = await startTestApp();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('renders the operations with nothing fetched from outside the service', async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (req) => requested.push(req.url()));
    await page.goto(`${app.url}/api-docs`);
    await page.waitForSelector('.opblock', RENDERED);
    const operations = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.textContent?.trim()));
    expect(operations).toEqual(expect.arrayContaining(['/api/health', '/api/version']));
    expect(requested.length).toBeGreaterThan(3);
    const outside = requested.filter((u) => !u.startsWith(`${app.url}/`) && !u.startsWith('data:'));
    expect(outside).toEqual([]);
    await page.close();
  });

  it("offers the scan upload form with the import's own defaults: every severity, the format detected", async () => {
    const page = await browser.newPage();
    await page.goto(`${app.url}/api-docs#/Reports/importScanFile`);
    const operation = page.locator('#operations-Reports-importScanFile');
    await operation.waitFor(RENDERED);
    if (!(await operation.locator('.try-out__btn').isVisible())) await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    const selected = (field: string) => operation.locator(`tr[data-property-name="${field}"] select`).inputValue();
    expect(await selected('minSeverity')).toBe('info');
    // No scanner chosen: the service detects the format by content.
    expect(await selected('format')).toBe('auto');
    // And a real import, not a dry run.
    expect(await selected('dryRun')).toBe('false');
    await page.close();
  });
});
