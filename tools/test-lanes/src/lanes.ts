/**
 * The test lanes. A test file's name says what it needs beyond the test run itself, by the tag
 * before `.test.ts`; the tag chooses its lane (a vitest project):
 *
 *   name.test.ts           unit: no database, no other process, no browser
 *   name.db.test.ts        db: the test run's PostgreSQL (`@service/db/testing`)
 *   name.process.test.ts   process: starts another process (the service, a CLI, LibreOffice, tar, ...)
 *   name.browser.test.ts   browser: drives Chromium
 *
 * `fixtures` before the lane's tag (`name.fixtures.test.ts`, `name.fixtures.db.test.ts`) marks a
 * file that reads the real scanner files in ../shared/fixtures, in any lane.
 *
 * `npm run test:unit` runs the unit lane, `npm run test:fast` unit and db, `npm test` all four.
 * A file in the wrong lane fails (see `lane-setup.ts`): a unit or db test that starts a process,
 * a unit test that asks for the database, a db test that never does.
 */
export const LANES = ['unit', 'db', 'process', 'browser'] as const;
export type Lane = (typeof LANES)[number];

/** Where test files live (a test file anywhere else would never run; lanes.test.ts checks). */
export const TEST_DIRS = ['apps/*/{src,test}', 'packages/*/src', 'tools/*/src'];

const under = (name: string) => TEST_DIRS.map((dir) => `${dir}/**/${name}`);
const OTHER_LANES = LANES.filter((lane) => lane !== 'unit');

/** The files of each lane, as include and exclude globs. */
export function laneFiles(lane: Lane): { include: string[]; exclude: string[] } {
  if (lane === 'unit') return { include: under('*.test.ts'), exclude: under(`*.{${OTHER_LANES.join(',')}}.test.ts`) };
  return { include: under(`*.${lane}.test.ts`), exclude: [] };
}

/** Files that read the shared scanner fixtures, in any lane. */
export const FIXTURE_FILES = ['**/*.fixtures.test.ts', '**/*.fixtures.*.test.ts'];

/**
 * What is wrong with a test file's name, or null: its tags (the dotted words before `.test.ts`)
 * are at most `fixtures` and then one lane's, so a misspelt lane (`name.database.test.ts`) is
 * refused instead of quietly running in the unit lane.
 */
export function testFileNameProblem(file: string): string | null {
  const tags = (/^[^.]+((?:\.[a-z0-9-]+)*)\.test\.ts$/.exec(file.split('/').pop() ?? '')?.[1] ?? '')
    .split('.')
    .slice(1);
  const known = ['fixtures', ...OTHER_LANES];
  const unknown = tags.filter((tag) => !known.includes(tag));
  if (unknown.length > 0)
    return `${file}: unknown tag ${unknown.map((t) => `.${t}`).join(', ')} (a test file is name[.fixtures][.${OTHER_LANES.join('|.')}].test.ts)`;
  const lanes = tags.filter((tag) => tag !== 'fixtures');
  if (lanes.length > 1 || (tags.includes('fixtures') && tags[0] !== 'fixtures'))
    return `${file}: one lane tag, after .fixtures (name[.fixtures][.${OTHER_LANES.join('|.')}].test.ts)`;
  return null;
}
