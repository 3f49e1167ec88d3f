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
 * Each lane's default budget (vitest.config.ts `testTimeout`): a process or browser test's work
 * includes starting Node and compiling modules (tsx), PostgreSQL, LibreOffice or Chromium.
 */
export const LANE_BUDGET_MS: Record<Lane, number> = {
  unit: DEFAULT_BUDGET_MS,
  db: DEFAULT_BUDGET_MS,
  process: 120_000,
  browser: 120_000,
};

/**
 * A heavy test's time budget, proportionate to its work: `msPerUnit` for each of `units` (rows,
 * runs, megabytes, parallel requests), never less than the default. Choose `msPerUnit` several
 * times what a loaded machine takes: the budget only stops a test that hangs.
 */
export function budgetMs(units: number, msPerUnit: number): number {
  return Math.max(DEFAULT_BUDGET_MS, Math.ceil(units * msPerUnit));
}
