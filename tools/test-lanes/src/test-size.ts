import type { Lane } from './lanes.ts';

/**
 * Heavy tests (property runs, megabyte inputs, streams of thousands of rows, LibreOffice
 * conversions) run at full size in CI (`CI=true`), where they prove the most, and smaller
 * elsewhere, so the edit-test loop on a shared two-core machine stays quick. Either size checks
 * the same outcome; speed is measured by the benches (`npm run bench`), never by a test.
 */
export const FULL_SIZE = process.env.CI === 'true';

/** `full` in CI, `local` elsewhere. */
export function laneSize<T>(full: T, local: T): T {
  return FULL_SIZE ? full : local;
}

/** The default time budget of a test. */
export const DEFAULT_BUDGET_MS = 30_000;

/**
 * The budget for starting one process until it is ready: Node compiling the app's modules (tsx),
 * the service with its embedded PostgreSQL and library, an installer command, LibreOffice, Chromium.
 * A few seconds of CPU each, and many times that on a shared two-core machine running several suites.
 */
export const PROCESS_START_MS = 90_000;

/** The budget of a test that starts `starts` processes (and waits on them), never less than the default. */
export function processBudgetMs(starts: number): number {
  return budgetMs(starts, PROCESS_START_MS);
}

/**
 * Each lane's default budget (vitest.config.ts `testTimeout`, and `hookTimeout` for its hooks): a
 * process or browser test's work includes starting what it starts, two processes unless it says more.
 */
export const LANE_BUDGET_MS: Record<Lane, { test: number; hook: number }> = {
  unit: { test: DEFAULT_BUDGET_MS, hook: 120_000 },
  db: { test: DEFAULT_BUDGET_MS, hook: 120_000 },
  process: { test: 2 * PROCESS_START_MS, hook: 4 * PROCESS_START_MS },
  browser: { test: 2 * PROCESS_START_MS, hook: 4 * PROCESS_START_MS },
};

/**
 * A heavy test's time budget, proportionate to its work: `msPerUnit` for each of `units` (rows,
 * runs, megabytes, parallel requests), never less than the default. Choose `msPerUnit` several
 * times what a loaded machine takes: the budget only stops a test that hangs.
 */
export function budgetMs(units: number, msPerUnit: number): number {
  return Math.max(DEFAULT_BUDGET_MS, Math.ceil(units * msPerUnit));
}
