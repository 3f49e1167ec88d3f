// Texts pathological for PostgreSQL's text-search parser or for a Markdown reader, at a megabyte:
// parallel saves (or Markdown imports) of one user complete, and another user's request made while
// they run is answered 200 (twelve at once in CI, four elsewhere). Times are measured by
// `npm run bench -- pathological-text`; these tests assert only the outcomes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetMs, laneSize } from '@service/test-lanes';
import { PATHOLOGICAL_MARKDOWN, PATHOLOGICAL_TEXTS } from '@service/markdown/testing';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const PARALLEL = laneSize(12, 4);
/** Each request parses, stores or indexes a megabyte (120,000 hand-written YAML keys the slowest). */
const BUDGET = budgetMs(PARALLEL, 15_000);
const MB = 1_000_000;

let app: TestApp;
let writer: Actor;
let reader: Actor;
let projectId: string;
let reportId: string;
let readerFindingId: string;
const findingIds: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  writer = await createActor(app, { role: 'member' });
  reader = await createActor(app, { role: 'member' });
  const client = await writer.api.post('/clients', { name: 'Pathological Corp' });
  await writer.allow(client.body.id);
  await reader.allow(client.body.id);
  const project = await writer.api.post('/projects', { clientId: client.body.id, name: 'Pathological' });
  projectId = project.body.id;
  const report = await writer.api.post('/reports', { projectId, title: 'Pathological texts' });
  reportId = report.body.id;
  for (let i = 0; i < PARALLEL; i++) {
    const f = await writer.api.post('/findings', { reportId, title: `Target ${i}`, severity: 'low' });
    findingIds.push(f.body.id);
  }
  const own = await reader.api.post('/findings', { reportId, title: 'Read by another user', severity: 'high' });
  readerFindingId = own.body.id;
});
afterAll(async () => {
  await app?.stop();
});

/** Starts the parallel requests, then another user's read; both sides must complete. */
async function whileParallelRun(parallel: () => Array<Promise<{ status: number }>>): Promise<number[]> {
  const running = parallel();
  const other = await reader.api.get(`/findings/${readerFindingId}`);
  expect(other.status).toBe(200);
  expect(other.body.title).toBe('Read by another user');
  const list = await reader.api.get(`/findings?report_id=${reportId}&per_page=5`);
  expect(list.status).toBe(200);
  return (await Promise.all(running)).map((r) => r.status);
}

describe('saving a megabyte of pathological text', () => {
  it.each(Object.keys(PATHOLOGICAL_TEXTS))(
    `%s: ${PARALLEL} parallel saves complete, others answered`,
    async (name) => {
      const text = PATHOLOGICAL_TEXTS[name]!;
      expect(text.length).toBeGreaterThan(MB * 0.95);
      expect(text.length).toBeLessThanOrEqual(MB);
      const statuses = await whileParallelRun(() =>
        findingIds.map((id) => writer.api.patch(`/findings/${id}`, { description: text })),
      );
      expect(statuses).toEqual(Array(PARALLEL).fill(200));
      const saved = await writer.api.get(`/findings/${findingIds[0]}`);
      expect(saved.body.description).toBe(text);
    },
    BUDGET,
  );
});

describe('importing a megabyte of pathological Markdown', () => {
  // A sample of the reader's slow paths (the package's tests read every one at a megabyte); files
  // of many findings are left to the bench (twelve imports of 30,000 findings).
  const names = [
    'summary of <!--',
    'description of [',
    'description of `a',
    'heading with spaces before its end',
    'evidence line with escapes',
    'many headings',
    'CR line ends',
    'YAML nested [ in a small block',
    'YAML many keys, hand-written',
  ];
  const cases = names.map((name) => [name, PATHOLOGICAL_MARKDOWN[name]!] as const);
  it.each(cases)(
    `%s: ${PARALLEL} parallel imports complete, others answered`,
    async (_name, { make, expect: outcome }) => {
      const markdown = make(MB);
      const statuses = await whileParallelRun(() =>
        Array.from({ length: PARALLEL }, () => writer.api.post('/reports/import-markdown', { markdown, projectId })),
      );
      expect(statuses).toEqual(Array(PARALLEL).fill(outcome === 'read' ? 201 : 422));
    },
    BUDGET,
  );
});
