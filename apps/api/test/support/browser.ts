import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { buildWebApp } from '@service/web';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
  Boolean,
) as string[];

/** Debian's Chromium, or null when this machine has none (CI installs it; see .ci/run). */
export const chromiumPath: string | null = CANDIDATES.find((p) => existsSync(p)) ?? null;

/** Browser tests run wherever Chromium exists and are never silently skipped in CI. */
export const skipBrowserTests = !chromiumPath && !process.env.CI;

/** Chromium, with the workspace app built (skipped when the build is of the current sources). */
export async function launchChromium(): Promise<Browser> {
  if (!chromiumPath) throw new Error('Chromium is not installed: apt-get install chromium (or set CHROMIUM_PATH).');
  await buildWebApp({ log: () => undefined });
  return chromium.launch({
    executablePath: chromiumPath,
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
