import { existsSync } from 'node:fs';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

// Test files are named for what they need beyond the test run's own PostgreSQL:
//   *.process.test.ts   start another process (the service, a CLI, LibreOffice, tar, sha256sum, ...)
//   *.browser.test.ts   drive Chromium
//   *.fixtures.test.ts  read the real scanner files in ../shared/fixtures (beside the repository)
// `npm test` runs them all. `npm run test:fast` (TEST_LANE=fast) leaves out the process and
// browser tests, for the edit-test loop.
const PROCESS_TESTS = '**/*.process.test.ts';
const BROWSER_TESTS = '**/*.browser.test.ts';
const FIXTURE_TESTS = '**/*.fixtures.test.ts';

const SHARED_FIXTURES = path.resolve(import.meta.dirname, '../shared/fixtures/scans');
const fixturesMissing = !existsSync(SHARED_FIXTURES);
if (fixturesMissing) {
  // Why fail in CI: a clone without the fixtures would otherwise pass without the tests that
  // prove the importers against real scanner output.
  if (process.env.CI === 'true') {
    throw new Error(
      `${SHARED_FIXTURES} is missing: the tests named *.fixtures.test.ts read the shared scanner ` +
        'fixtures, and CI runs them. Place the shared folder beside the repository (../shared).',
    );
  }
  process.stderr.write(
    `vitest: ${SHARED_FIXTURES} is missing; leaving out the *.fixtures.test.ts files, which read the shared scanner fixtures\n`,
  );
}
const fast = process.env.TEST_LANE === 'fast';

export default defineConfig({
  test: {
    include: ['apps/*/{src,test}/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'tools/*/src/**/*.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      ...(fixturesMissing ? [FIXTURE_TESTS] : []),
      ...(fast ? [PROCESS_TESTS, BROWSER_TESTS] : []),
    ],
    globalSetup: ['./packages/db/src/testing/global-setup.ts', './packages/storage/src/testing/global-setup.ts'],
    pool: 'forks',
    // Why not isolated: every test file builds its own app on its own databases and keeps its state
    // in its own scope, so a worker can keep the modules it loaded; loading them again for each
    // file was a third of the run. Why three workers on two cores: most of a test's time is spent
    // waiting on PostgreSQL, the service or LibreOffice.
    isolate: false,
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
