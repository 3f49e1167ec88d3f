import { existsSync } from 'node:fs';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

// The real scanner files live beside the repository (`../shared/fixtures`), never inside it. On a
// machine without them the tests that read them are left out, saying so, instead of failing on a
// missing file; everywhere they exist (development machines, CI) every test runs.
const SHARED_FIXTURES = path.resolve(import.meta.dirname, '../shared/fixtures/scans');
const READ_SHARED_FIXTURES = [
  'packages/scanners/src/damaged-input.test.ts',
  'packages/scanners/src/parse-scan-stream.test.ts',
  'packages/scanners/src/hostile-xml.test.ts',
  'packages/scanners/src/detect-format.test.ts',
  'packages/scanners/src/affected-assets.test.ts',
  'packages/scanners/src/expected-fixtures.test.ts',
  'packages/scanners/src/parse-burp.test.ts',
  'packages/library/src/match-templates.test.ts',
  'packages/library/src/scan-coverage.test.ts',
  'apps/api/test/scan-import.test.ts',
  'apps/api/test/round-trip.test.ts',
];
const fixturesMissing = !existsSync(SHARED_FIXTURES);
if (fixturesMissing)
  process.stderr.write(
    `vitest: ${SHARED_FIXTURES} is missing; leaving out the ` +
      `${READ_SHARED_FIXTURES.length} test files that read the shared scanner fixtures\n`,
  );

export default defineConfig({
  test: {
    include: ['apps/*/{src,test}/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'tools/*/src/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(fixturesMissing ? READ_SHARED_FIXTURES : [])],
    globalSetup: ['./packages/db/src/testing/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
