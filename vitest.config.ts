import { existsSync } from 'node:fs';
import path from 'node:path';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { FIXTURE_FILES, laneFiles, LANES, type Lane } from './tools/test-lanes/src/lanes.ts';
import { LANE_BUDGET_MS } from './tools/test-lanes/src/test-size.ts';

// The lanes, one vitest project each, are chosen by file name: see tools/test-lanes/src/lanes.ts.
//   npm run test:unit   vitest run --project unit
//   npm run test:fast   vitest run --project unit --project db
//   npm test            every lane
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

function lane(name: Lane): TestProjectInlineConfiguration {
  const { include, exclude } = laneFiles(name);
  return {
    extends: true,
    test: {
      name,
      include,
      exclude: [...configDefaults.exclude, ...exclude, ...(fixturesMissing ? FIXTURE_FILES : [])],
      provide: { testLane: name },
      testTimeout: LANE_BUDGET_MS[name].test,
      hookTimeout: LANE_BUDGET_MS[name].hook,
      setupFiles: ['./tools/test-lanes/src/lane-setup.ts'],
      // The unit lane has no database: its tests start in a second, without waiting for PostgreSQL.
      // The other lanes share the run's PostgreSQL and the folder of its S3 gateway, which the
      // first test that needs S3 starts (a process: such tests are *.process.test.ts).
      globalSetup:
        name === 'unit'
          ? []
          : ['./packages/db/src/testing/global-setup.ts', './packages/storage/src/testing/global-setup.ts'],
    },
  };
}

export default defineConfig({
  test: {
    projects: LANES.map(lane),
    pool: 'forks',
    // Why not isolated: every test file builds its own app on its own databases and keeps its state
    // in its own scope, so a worker can keep the modules it loaded; loading them again for each
    // file was a third of the run. Why three workers on two cores: most of a test's time is spent
    // waiting on PostgreSQL, the service or LibreOffice.
    isolate: false,
    maxWorkers: 3,
  },
});
