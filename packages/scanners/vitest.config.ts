import { defineConfig } from 'vitest/config';

// Runs this package's tests alone, without the workspace's database global setup:
// `npx vitest run --config packages/scanners/vitest.config.ts` from the repository root.
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['src/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
  },
});
