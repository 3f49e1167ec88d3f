// The workspace app in real Chromium, end to end: from a new client to a downloaded PDF, with a
// pasted screenshot, a finding from the library, a Nessus import after its dry run, a reordered
// list, a conflict resolved from a second browser, and a retest result. Every page is checked
// with axe-core (no serious or critical violation) and screenshotted at 1366x768 and 390x844.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipBrowserTests } from './support/browser.ts';
import { pngOfColour } from './support/png.ts';
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp } from './support/start-test-app.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const NESSUS = path.resolve(HERE, '../../../../shared/fixtures/scans/nessus/dd__nessus_with_cvssv3.nessus');
/** axe-core's own source, evaluated in each page checked. */
const AXE = axe.source;
/** Where the screenshots go (look at them; a few are kept in docs/images). */
const SHOTS = process.env.SCREENSHOT_DIR ?? path.resolve(HERE, '../../../tmp/screenshots');

/** The browser's own classes, as the page sees them (this Node test has no DOM types). */
interface PageGlobals {
  DataTransfer: new () => { items: { add(file: unknown): void } };
  File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
  ClipboardEvent: new (type: string, init: Record<string, unknown>) => unknown;
}

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];
const ids: Record<string, string> = {};
// Why: the conflict and busy steps provoke these answers on purpose; Chromium logs each one.
const expectedFailures =
  /^Failed to load resource: (the server responded with a status of (404|409)\b|net::ERR_INTERNET_DISCONNECTED)/;

async function watch(p: Page): Promise<Page> {
  p.on('console', (msg) => {
    if (msg.type() === 'error' && !expectedFailures.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  p.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  p.on('response', async (res) => {
    if (res.status() === 400 || res.status() === 422 || res.status() >= 500)
      problems.push(`${res.status()} ${res.request().method()} ${res.url()}: ${await res.text().catch(() => '')}`);
  });
  p.on('request', (req) => {
    if (!req.url().startsWith(app.url) && !req.url().startsWith('data:') && !req.url().startsWith('blob:'))
      problems.push(`request off the machine: ${req.url()}`);
  });
  await p.addInitScript({
    content:
      "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + " +
      "e.violatedDirective + ' ' + e.blockedURI));",
  });
  return p;
}

async function signIn(p: Page): Promise<void> {
  await p.goto(`${app.url}/`);
  await p.getByLabel('Email').fill('admin@example.com');
  await p.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.waitForURL(`${app.url}/reports`);
}

/** axe-core in the page: no serious or critical violation. */
async function expectAccessible(p: Page, name: string): Promise<void> {
  await p.evaluate(AXE);
  const violations = (await p.evaluate(async () => {
    const inPage = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    return (await inPage.run()).violations;
  })) as Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }>;
  const bad = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`);
  expect(bad, `${name}: axe-core`).toEqual([]);
}

/** The page checked with axe and photographed at the desktop and the phone size. */
async function review(p: Page, name: string): Promise<void> {
  await expectAccessible(p, name);
  for (const [w, h] of [
    [1366, 768],
    [390, 844],
  ] as const) {
    await p.setViewportSize({ width: w, height: h });
    await p.screenshot({ path: path.join(SHOTS, `${name}-${w}x${h}.png`), fullPage: false });
  }
  await p.setViewportSize({ width: 1366, height: 768 });
}

async function saved(p: Page): Promise<void> {
  await p.locator('[data-save-state="saved"]').first().waitFor();
}

beforeAll(async () => {
  if (skipBrowserTests) return;
  mkdirSync(SHOTS, { recursive: true });
  app = await startTestApp();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1366, height: 768 }, acceptDownloads: true });
  page = await watch(await context.newPage());
  await signIn(page);
});
afterEach(async ({ task }) => {
  if (task.result?.state === 'fail' && page)
    await page.screenshot({ path: path.join(SHOTS, `failed-${task.name.slice(0, 40).replace(/\W+/g, '-')}.png`) });
  await context?.setOffline(false);
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe.skipIf(skipBrowserTests)('the workspace app', () => {
  it('creates a client, a project and a report from a template, through the pages', async () => {
    await review(page, 'reports-empty');
    await page.getByRole('link', { name: 'Clients', exact: true }).first().click();
    await page.getByLabel('New client’s name').fill('Acme Corp');
    await page.getByRole('button', { name: 'Create client' }).click();
    await page.waitForURL(/\/clients\/[0-9a-f-]{36}$/);
    ids.client = page.url().split('/').pop()!;
    await page.getByLabel('New project’s name').fill('External test 2026');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/\/projects\/[0-9a-f-]{36}$/);
    ids.project = page.url().split('/').pop()!;
    await review(page, 'project');
    await page.getByLabel('Title').fill('External penetration test');
    const template = page.getByLabel('Report template');
    const options = await template.locator('option').allTextContents();
    expect(options.length).toBeGreaterThan(1);
    await template.selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Create report' }).click();
    await page.waitForURL(/\/reports\/[0-9a-f-]{36}$/);
    ids.report = page.url().split('/').pop()!;
    await page.getByRole('heading', { name: 'External penetration test' }).waitFor();
    const crumbs = await page.getByRole('navigation', { name: 'Breadcrumbs' }).textContent();
    expect(crumbs).toContain('Acme Corp');
    expect(crumbs).toContain('External test 2026');
    await review(page, 'report-findings-empty');
  });

  it('writes a tab and pastes a screenshot: uploaded as evidence, referenced at the cursor, previewed', async () => {
    const firstTab = page.getByRole('navigation', { name: 'Sections of the report' }).getByRole('link').nth(1);
    await firstTab.click();
    const editor = page.locator('.cm-content').first();
    await editor.waitFor();
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n\nWe tested **three** hosts.\n\n');
    const png = [...pngOfColour(200, 30, 30)];
    // A paste as the browser delivers it: a ClipboardEvent whose data holds an image file.
    await editor.evaluate(
      (el, { bytes, name }) => {
        const w = globalThis as unknown as PageGlobals;
        const data = new w.DataTransfer();
        data.items.add(new w.File([new Uint8Array(bytes)], name, { type: 'image/png' }));
        const paste = new w.ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true });
        (el as unknown as { dispatchEvent(e: unknown): void }).dispatchEvent(paste);
      },
      { bytes: png, name: 'login-page.png' },
    );
    await page.locator('.cm-content', { hasText: 'evidence:sha256:' }).first().waitFor();
    await page.locator('.md-preview img[alt="login-page"]').first().waitFor();
    await page.locator('.md-preview strong', { hasText: 'three' }).first().waitFor();
    await saved(page);
    const tabs = await (await page.request.get(`${app.url}/rest/v1/report-tabs?report_id=${ids.report}`)).json();
    expect(JSON.stringify(tabs)).toContain('We tested **three** hosts.');
    expect(JSON.stringify(tabs)).toMatch(/!\[login-page\]\(evidence:sha256:[0-9a-f]{64}\?type=image\/png/);
    await review(page, 'report-tab');
  });

  it('keeps a draft typed offline and saves it when the connection is back', async () => {
    await context.setOffline(true);
    const editor = page.locator('.cm-content').first();
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('Typed while offline.');
    await page.locator('[data-save-state="offline"]').first().waitFor();
    await page.reload().catch(() => undefined);
    await context.setOffline(false);
    await page.reload();
    // CodeMirror draws only the lines in view: go to the end of the text to see it.
    await page.locator('.cm-content').first().click();
    await page.keyboard.press('Control+End');
    await page.locator('.cm-content', { hasText: 'Typed while offline.' }).first().waitFor();
    await saved(page);
    const tabs = await (await page.request.get(`${app.url}/rest/v1/report-tabs?report_id=${ids.report}`)).json();
    expect(JSON.stringify(tabs)).toContain('Typed while offline.');
  });

  it('adds a finding from the library in the report’s language', async () => {
    await page.goto(`${app.url}/reports/${ids.report}`);
    await page.getByRole('button', { name: 'New from library' }).click();
    const dialog = page.getByRole('dialog', { name: 'New finding from the library' });
    await dialog.getByLabel('Search the finding library').fill('TLS');
    const pick = dialog.locator('.pick').first();
    await pick.waitFor();
    const title = (await pick.textContent())!.replace(/^(Critical|High|Medium|Low|Info)\s*/, '').trim();
    await pick.click();
    await dialog.getByRole('region', { name: 'Template preview' }).getByRole('heading').first().waitFor();
    await review(page, 'library-picker');
    await dialog.getByRole('button', { name: 'Create the finding' }).click();
    await page.waitForURL(/\/findings\/[0-9a-f-]{36}$/);
    ids.libraryFinding = page.url().split('/').pop()!;
    expect(await page.getByLabel('Title', { exact: true }).inputValue()).toBe(title);
    await review(page, 'finding-editor');
  });

  it('asks for a severity reason when the CVSS band differs, and computes the score from the metrics', async () => {
    const calc = page.getByRole('group', { name: 'CVSS 3.1' });
    for (const [metric, value] of [
      ['Attack Vector (AV)', 'N'],
      ['Attack Complexity (AC)', 'L'],
      ['Privileges Required (PR)', 'N'],
      ['User Interaction (UI)', 'N'],
      ['Scope (S)', 'U'],
      ['Confidentiality (C)', 'H'],
      ['Integrity (I)', 'H'],
      ['Availability (A)', 'H'],
    ] as const)
      await calc.getByLabel(metric).selectOption(value);
    expect(await calc.getByLabel('Vector', { exact: true }).inputValue()).toBe(
      'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    );
    await calc.getByText('Base score 9.8').waitFor();
    await page
      .getByRole('combobox', { name: /^Severity/ })
      .first()
      .selectOption('low');
    const reason = page.getByLabel('Severity reason');
    await reason.waitFor();
    await reason.fill('Only reachable from the management network.');
    await saved(page);
    const finding = await (await page.request.get(`${app.url}/rest/v1/findings/${ids.libraryFinding}`)).json();
    expect(finding).toMatchObject({ severity: 'low', severityReason: 'Only reachable from the management network.' });
    expect(finding.cvss).toContainEqual(expect.objectContaining({ version: '3.1', baseScore: 9.8 }));
  });

  it('imports a Nessus file through the dialog: dry run first, then the import', async () => {
    await page.goto(`${app.url}/reports/${ids.report}`);
    await page.getByRole('button', { name: 'Import scan' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import scanner files' });
    expect(await dialog.getByLabel('Minimum severity').inputValue()).toBe('low');
    await dialog.getByLabel('Scanner files').setInputFiles(NESSUS);
    await dialog.getByRole('button', { name: 'Dry run' }).click();
    await dialog.getByText(/nessus: \d+ to create, \d+ to merge, \d+ skipped — dry run/).waitFor();
    const before = await (await page.request.get(`${app.url}/rest/v1/findings?report_id=${ids.report}`)).json();
    expect(before).toHaveLength(1);
    await review(page, 'import-dry-run');
    await dialog.getByRole('button', { name: 'Import', exact: true }).click();
    await dialog.getByText(/— imported/).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    const after = await (await page.request.get(`${app.url}/rest/v1/findings?report_id=${ids.report}`)).json();
    expect(after.length).toBeGreaterThan(1);
    await page.locator(`.finding-list[data-count="${after.length}"]`).waitFor();
    await review(page, 'report-findings');
  });

  it('reorders findings with the keyboard and by drag, which sets the manual order', async () => {
    const rows = page.locator('.finding-row .finding-title');
    const first = (await rows.nth(0).textContent())!;
    const second = (await rows.nth(1).textContent())!;
    await rows.nth(0).focus();
    await page.keyboard.press('Alt+ArrowDown');
    await page.locator('.finding-row').nth(0).locator('.finding-title', { hasText: second }).waitFor();
    let report = await (await page.request.get(`${app.url}/rest/v1/reports/${ids.report}`)).json();
    expect(report.findingOrder).toBe('manual');
    await page.locator('.finding-row').nth(1).dragTo(page.locator('.finding-row').nth(0));
    await page.locator('.finding-row').nth(0).locator('.finding-title', { hasText: first }).waitFor();
    const order = await (
      await page.request.get(`${app.url}/rest/v1/report-findings?report_id=${ids.report}&per_page=100`)
    ).json();
    const ordered = order.sort((a: { position: number }, b: { position: number }) => a.position - b.position);
    const firstId = await page.locator('.finding-row').nth(0).getAttribute('data-finding-id');
    expect(ordered[0].findingId).toBe(firstId);
    report = await (await page.request.get(`${app.url}/rest/v1/reports/${ids.report}`)).json();
    expect(report.findingOrder).toBe('manual');
  });

  it('resolves a conflict with a second browser: both versions shown, merged field by field', async () => {
    const url = `${app.url}/reports/${ids.report}/findings/${ids.libraryFinding}`;
    await page.goto(url);
    const other = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const second = await watch(await other.newPage());
    await signIn(second);
    await second.goto(url);
    await second.getByLabel('Title', { exact: true }).waitFor();
    // The first person goes offline and types; the second saves meanwhile.
    await context.setOffline(true);
    await page.getByLabel('Title', { exact: true }).fill('Mine: weak TLS on the portal');
    await second.getByLabel('Title', { exact: true }).fill('Theirs: weak TLS');
    await saved(second);
    await context.setOffline(false);
    const dialog = page.getByRole('dialog', { name: 'Someone else saved this too' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Mine: weak TLS on the portal');
    expect(await dialog.textContent()).toContain('Theirs: weak TLS');
    await review(page, 'conflict');
    await dialog.getByRole('button', { name: 'Keep mine' }).click();
    await saved(page);
    const finding = await (await page.request.get(`${app.url}/rest/v1/findings/${ids.libraryFinding}`)).json();
    expect(finding.title).toBe('Mine: weak TLS on the portal');
    // The second person sees it within a few seconds (polling with ETags).
    await expect
      .poll(() => second.getByLabel('Title', { exact: true }).inputValue(), { timeout: 20_000 })
      .toMatch(/^Mine:/);
    await other.close();
  });

  it('exports DOCX and PDF with a visible busy state, and the downloads are the documents', async () => {
    await page.goto(`${app.url}/reports/${ids.report}`);
    for (const [label, magic] of [
      ['Export DOCX', 'PK'],
      ['Export PDF', '%PDF'],
    ] as const) {
      const download = page.waitForEvent('download', { timeout: 120_000 });
      await page.getByRole('button', { name: label }).click();
      const file = await download;
      const bytes = readFileSync((await file.path())!);
      expect(bytes.subarray(0, magic.length).toString('latin1')).toBe(magic);
      expect(file.suggestedFilename()).toMatch(label === 'Export DOCX' ? /\.docx$/ : /\.pdf$/);
      await page.getByRole('status').filter({ hasText: 'Downloaded' }).waitFor();
    }
  });

  it('creates a retest round and sets a result', async () => {
    await page.goto(`${app.url}/reports/${ids.report}/retests`);
    await review(page, 'report-retests');
    await page.getByRole('button', { name: 'Create the next retest round' }).click();
    await page.waitForURL((u) => /\/reports\/[0-9a-f-]{36}$/.test(u.pathname) && !u.pathname.endsWith(ids.report!));
    ids.retest = page.url().split('/').pop()!;
    await page.goto(`${app.url}/reports/${ids.retest}/retests`);
    const result = page.locator('.retest-result').first();
    await result.getByLabel('Retest status').selectOption('resolved');
    await result.getByLabel('Note').fill('Fixed in the 2026-12 release.');
    await result.locator('[data-save-state="saved"]').waitFor();
    const results = await (await page.request.get(`${app.url}/rest/v1/retest-results?report_id=${ids.retest}`)).json();
    expect(results).toContainEqual(
      expect.objectContaining({ status: 'resolved', notes: 'Fixed in the 2026-12 release.' }),
    );
    await review(page, 'retest-results');
  });

  it('shows the same not-found page as the API for what does not exist, answered 404', async () => {
    const res = await page.goto(`${app.url}/reports/00000000-0000-4000-8000-000000000000`);
    expect(res?.status()).toBe(404);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await review(page, 'not-found');
  });

  it('has the library, the clients, the projects and the trash, each accessible', async () => {
    for (const [pathName, heading, shot] of [
      ['/library', 'Library', 'library'],
      ['/clients', 'Clients', 'clients'],
      ['/projects', 'Projects', 'projects'],
      ['/trash', 'Trash', 'trash'],
      [`/reports/${ids.report}/settings`, 'Report settings', 'report-settings'],
    ] as const) {
      await page.goto(`${app.url}${pathName}`);
      await page.getByRole('heading', { name: heading, exact: true }).first().waitFor();
      await review(page, shot);
    }
  });

  it('speaks German when the user chooses it; the report keeps its language', async () => {
    await page.goto(`${app.url}/reports/${ids.report}`);
    await page.getByLabel('Interface language').selectOption('de');
    await page.getByRole('button', { name: 'Aus der Bibliothek' }).waitFor();
    await review(page, 'report-findings-de');
    await page.getByLabel('Oberflächensprache').selectOption('en');
  });

  it('loaded nothing from elsewhere, and logged no error or CSP violation', () => {
    expect(problems).toEqual([]);
  });
});
