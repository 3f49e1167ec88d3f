// Issue 27 item 6: a report's finding positions stay unique and dense (0..n-1) under 20 parallel
// creates, attaches, moves and removals, in manual and in severity order; retest rounds are
// numbered per original and 20 parallel retests of one original take 20 different rounds. The
// database holds both rules as constraints, so no code path can break them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const PARALLEL = 20;

let app: TestApp;
let actor: Actor;
let projectId: string;

beforeAll(async () => {
  app = await startTestApp();
  actor = await createActor(app, { role: 'member' });
  const clientId = (await actor.api.post('/clients', { name: 'Parallel Ltd' })).body.id;
  await actor.allow(clientId);
  projectId = (await actor.api.post('/projects', { clientId, name: 'Parallel' })).body.id;
});
afterAll(async () => {
  await app?.stop();
});

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

async function newReport(title: string, findingOrder: 'manual' | 'severity'): Promise<string> {
  const res = await actor.api.post('/reports', { projectId, title });
  expect(res.status).toBe(201);
  if (findingOrder === 'manual')
    await app.dbs.tenant('reports').where({ id: res.body.id }).update({ finding_order: 'manual' });
  return res.body.id;
}

/** The positions of a report's findings, in order. */
async function positionsOf(reportId: string): Promise<number[]> {
  return (
    await app.dbs.tenant('report_findings').where({ report_id: reportId }).orderBy('position').pluck('position')
  ).map(Number);
}

async function statuses(requests: Array<Promise<{ status: number }>>): Promise<number[]> {
  return (await Promise.all(requests)).map((r) => r.status);
}

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

describe('finding positions under parallel requests', () => {
  it.each(['manual', 'severity'] as const)('%s order: 20 parallel creates take positions 0..19', async (order) => {
    const reportId = await newReport(`Creates, ${order}`, order);
    const created = await statuses(
      range(PARALLEL).map((i) =>
        actor.api.post('/findings', { reportId, title: `F${i}`, severity: SEVERITIES[i % SEVERITIES.length] }),
      ),
    );
    expect(created).toEqual(Array(PARALLEL).fill(201));
    expect(await positionsOf(reportId)).toEqual(range(PARALLEL));
    if (order === 'severity') {
      const listed = (await actor.api.get(`/findings?report_id=${reportId}&per_page=100`)).body;
      const ranks = listed.map((f: { severity: (typeof SEVERITIES)[number] }) => SEVERITIES.indexOf(f.severity));
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    }
  });

  it('20 parallel attachments, half at a position given by hand (some past the end), stay dense', async () => {
    const reportId = await newReport('Attaches', 'manual');
    await actor.api.post('/findings', { reportId, title: 'Already there', severity: 'low' });
    const findings = await Promise.all(
      range(PARALLEL).map(
        async (i) => (await actor.api.post('/findings', { projectId, title: `A${i}`, severity: 'low' })).body.id,
      ),
    );
    const attached = await statuses(
      findings.map((findingId, i) =>
        actor.api.post('/report-findings', { reportId, findingId, ...(i % 2 === 0 ? { position: (i * 7) % 30 } : {}) }),
      ),
    );
    expect(attached).toEqual(Array(PARALLEL).fill(201));
    expect(await positionsOf(reportId)).toEqual(range(PARALLEL + 1));
  });

  it('20 parallel moves, creates, detaches and deletes leave positions 0..n-1 and every finding once', async () => {
    const reportId = await newReport('Moves', 'manual');
    for (const i of range(PARALLEL))
      expect((await actor.api.post('/findings', { reportId, title: `M${i}`, severity: 'medium' })).status).toBe(201);
    const attachments = (await actor.api.get(`/report-findings?report_id=${reportId}&per_page=100`)).body as Array<{
      id: string;
      findingId: string;
    }>;
    const requests = range(PARALLEL).map((i) => {
      const a = attachments[i]!;
      if (i % 4 === 0) return actor.api.delete(`/report-findings/${a.id}`);
      if (i % 4 === 1) return actor.api.delete(`/findings/${a.findingId}`);
      if (i % 4 === 2) return actor.api.post('/findings', { reportId, title: `New ${i}`, severity: 'high' });
      return actor.api.patch(`/report-findings/${a.id}`, { position: (i * 11) % (PARALLEL + 5) });
    });
    const answered = await statuses(requests);
    expect(answered).toEqual(range(PARALLEL).map((i) => [204, 204, 201, 200][i % 4]));
    const remaining = PARALLEL - PARALLEL / 2 + PARALLEL / 4;
    expect(await positionsOf(reportId)).toEqual(range(remaining));
  });

  it('20 parallel moves of one report in severity order turn it manual and keep it dense', async () => {
    const reportId = await newReport('Moves in severity order', 'severity');
    for (const i of range(PARALLEL))
      await actor.api.post('/findings', { reportId, title: `S${i}`, severity: SEVERITIES[i % 5] });
    const attachments = (await actor.api.get(`/report-findings?report_id=${reportId}&per_page=100`)).body as Array<{
      id: string;
    }>;
    const moved = await statuses(
      attachments.map((a, i) => actor.api.patch(`/report-findings/${a.id}`, { position: PARALLEL - 1 - i })),
    );
    expect(moved).toEqual(Array(PARALLEL).fill(200));
    expect(await positionsOf(reportId)).toEqual(range(PARALLEL));
    expect((await actor.api.get(`/reports/${reportId}`)).body.findingOrder).toBe('manual');
  });

  it('a position taken twice is refused by the database itself', async () => {
    const reportId = await newReport('Constraint', 'manual');
    for (const i of range(2)) await actor.api.post('/findings', { reportId, title: `C${i}`, severity: 'low' });
    await expect(
      app.dbs.tenant('report_findings').where({ report_id: reportId, position: 1 }).update({ position: 0 }),
    ).rejects.toThrow(/report_findings_position/);
  });
});

describe('retest rounds under parallel requests', () => {
  it('rounds follow one another per original, also for retests of the same report one after the other', async () => {
    const original = await newReport('Rounds in turn', 'severity');
    const first = await actor.api.post(`/reports/${original}/retests`, {});
    const second = await actor.api.post(`/reports/${original}/retests`, {});
    const ofFirst = await actor.api.post(`/reports/${first.body.id}/retests`, {});
    expect([first.body.round, second.body.round, ofFirst.body.round]).toEqual([1, 2, 3]);
    expect(second.body.title).toBe('Retest 2: Rounds in turn');
    expect(ofFirst.body).toMatchObject({ retestOf: first.body.id, originalReportId: original });
  });

  it('20 parallel retests of one original and of its rounds take 20 different rounds', async () => {
    const original = await newReport('Rounds at once', 'severity');
    await actor.api.post('/findings', { reportId: original, title: 'To retest', severity: 'high' });
    const round1 = (await actor.api.post(`/reports/${original}/retests`, {})).body.id;
    const created = await Promise.all(
      range(PARALLEL).map((i) => actor.api.post(`/reports/${i % 2 === 0 ? original : round1}/retests`, {})),
    );
    expect(created.map((r) => r.status)).toEqual(Array(PARALLEL).fill(201));
    const rounds = created.map((r) => r.body.round as number).sort((a, b) => a - b);
    expect(rounds).toEqual(range(PARALLEL).map((i) => i + 2));
    await expect(app.dbs.tenant('reports').where({ id: created[0]!.body.id }).update({ round: 1 })).rejects.toThrow(
      /reports_original_round/,
    );
  });
});
