// The workspace app in Chromium (issue 29, item 12). Targets: a report of 1,000 findings shows its
// findings list under 1 s after navigation; a keystroke in a 100 KB tab costs under 16 ms; the
// first page's JavaScript is under 300 KB gzip. BENCH_RUNS (default 5) sets the repetitions.
import { buildWebApp } from '@service/web';
import type { Page } from 'playwright-core';
import { launchBenchChromium } from '../support/chromium.ts';
import { startBenchService } from '../support/bench-service.ts';
import { lightReport } from '../support/light-report.ts';
import { seedProject } from '../support/seed-report.ts';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? Number.NaN;
};

/** A tab of about `bytes` of Markdown: paragraphs, lists, a table, code. */
function longTab(bytes: number): string {
  const block =
    '## Observation\n\nThe service on **host-17.example** accepts TLS 1.0; see `openssl s_client`.\n\n' +
    '- first point of the list\n- second point with a [link](https://example.com)\n\n' +
    '| Host | Port | Finding |\n| --- | --- | --- |\n| 10.0.0.1 | 443 | TLS 1.0 |\n\n```\nGET / HTTP/1.1\nHost: x\n```\n\n';
  return block.repeat(Math.ceil(bytes / block.length)).slice(0, bytes);
}

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('Email').fill('bench@example.com');
  await page.getByLabel('Password').fill('bench-password-123');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${url}/reports`);
}

export default async function run(): Promise<void> {
  const runs = Number(process.env.BENCH_RUNS ?? 5);
  const manifest = await buildWebApp({ force: true });
  const gzip = manifest.firstPage.reduce((n, f) => n + f.gzipBytes, 0);
  const raw = manifest.firstPage.reduce((n, f) => n + f.bytes, 0);
  console.log(
    `first page JavaScript: ${(gzip / 1024).toFixed(1)} KB gzip (${(raw / 1024).toFixed(1)} KB) in ` +
      `${manifest.firstPage.length} files; target < 300 KB gzip`,
  );

  const svc = await startBenchService();
  const browser = await launchBenchChromium();
  try {
    const { key, principal, projectId } = await seedProject(svc, { client: 'Bench', project: 'Bench' });
    const { reportId } = await svc.dbs.tenant.transaction((trx) =>
      svc.app.services.markdownImport.create(trx, principal, projectId, { document: lightReport(1000), warnings: [] }),
    );
    const tab = await fetch(`${svc.url}/rest/v1/report-tabs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reportId, title: 'Long tab', content: longTab(100 * 1024) }),
    }).then((r) => r.json() as Promise<{ id: string }>);

    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const page = await context.newPage();
    await signIn(page, svc.url);

    const shown: number[] = [];
    for (let i = 0; i < runs; i++) {
      await page.goto(`${svc.url}/reports`);
      await page.goto(`${svc.url}/reports/${reportId}`);
      await page.locator('.finding-list[data-count="1000"] li').nth(999).waitFor({ state: 'attached' });
      // Milliseconds since this navigation started (the document's time origin).
      shown.push(await page.evaluate('performance.now()'));
    }
    console.log(
      `1,000-finding report, findings list shown after navigation: median ${percentile(shown, 0.5).toFixed(0)} ms, ` +
        `max ${Math.max(...shown).toFixed(0)} ms over ${runs} loads; target < 1000 ms`,
    );

    await page.goto(`${svc.url}/reports/${reportId}/${tab.id}`);
    const editor = page.locator('.cm-content').first();
    await editor.waitFor();
    await editor.click();
    await page.keyboard.press('Control+End');
    // From the key press to the frame after it: processing, layout and paint of one keystroke.
    await page.evaluate(`(() => {
      window.__keystrokes = [];
      document.addEventListener('keydown', () => {
        const start = performance.now();
        requestAnimationFrame(() => setTimeout(() => window.__keystrokes.push(performance.now() - start), 0));
      }, true);
    })()`);
    for (const ch of 'The quick brown fox jumps over the lazy dog again and again.') {
      await page.keyboard.type(ch);
      await page.waitForTimeout(30);
    }
    await page.waitForTimeout(300);
    const keys = (await page.evaluate('window.__keystrokes')) as number[];
    console.log(
      `keystroke in a 100 KB tab: median ${percentile(keys, 0.5).toFixed(1)} ms, ` +
        `p95 ${percentile(keys, 0.95).toFixed(1)} ms, max ${Math.max(...keys).toFixed(1)} ms over ${keys.length} keys; ` +
        'target < 16 ms',
    );
    await context.close();
  } finally {
    await browser.close();
    await svc.stop();
  }
}
