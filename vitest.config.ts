import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['apps/*/{src,test}/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'tools/*/src/**/*.test.ts'],
    globalSetup: ['./packages/db/src/testing/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
