import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium, launched as the browser tests launch it (apps/api/test/support/browser.ts):
 * headless, no GPU, nothing fetched from the network by the browser itself.
 */
export async function launchBenchChromium(): Promise<Browser> {
  const path = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
    (p) => p && existsSync(p),
  );
  if (!path) throw new Error('Chromium is not installed: apt-get install chromium (or set CHROMIUM_PATH).');
  return chromium.launch({
    executablePath: path,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
