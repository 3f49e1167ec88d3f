// Pathological input (issue "No quadratic input"): texts made of runs that a parser may rescan from
// every position, saved through the REST API, and Markdown files built to hit the reader's slow
// paths. Figures:
//  1. each text at 1 MB: one PATCH alone; twelve parallel PATCHes of it (all of them); and another
//     user's GET of one finding, repeated while the twelve run (median and worst).
//     Target: one save under 1 s; the other user's requests answered normally.
//  2. each Markdown file read by the importer (no database) at 250 KB and 1 MB, and the ratio:
//     about 4 means linear. Target: 1 MB under 1 s.
//  3. twelve parallel API imports of a few 1 MB files, with the other user's GETs as in 1.
import { ApiKeyRepository } from '@service/auth';
import { importReportMarkdown } from '@service/markdown';
import { PATHOLOGICAL_MARKDOWN, PATHOLOGICAL_TEXTS } from '@service/markdown/testing';
import { startBenchService, type BenchService } from '../support/bench-service.ts';
import { median } from '../support/median.ts';

const PARALLEL = 12;

async function keyFor(svc: BenchService, role: 'admin' | 'member', clientIds: string[]): Promise<string> {
  const org = await svc.dbs.controlPlane('organizations').first();
  const user = await svc.dbs.controlPlane('users').where({ role: 'admin' }).first();
  const { value } = await new ApiKeyRepository(svc.dbs.controlPlane).create({
    organizationId: org.id,
    userId: user.id,
    name: `bench ${role}`,
    scope: 'read-write',
    expiresAt: new Date(Date.now() + 86_400_000),
    clientIds,
  });
  return value;
}

export default async function run(): Promise<void> {
  const svc = await startBenchService();
  try {
    const setupKey = await keyFor(svc, 'admin', []);
    const call = async (key: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${svc.url}/rest/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
    const client = await call(setupKey, 'POST', '/clients', { name: 'Bench pathological' });
    const writer = await keyFor(svc, 'admin', [client.body.id]);
    const reader = await keyFor(svc, 'member', [client.body.id]);
    const project = await call(writer, 'POST', '/projects', { clientId: client.body.id, name: 'P' });
    const report = await call(writer, 'POST', '/reports', { projectId: project.body.id, title: 'R' });
    const ids: string[] = [];
    for (let i = 0; i <= PARALLEL; i++) {
      const f = await call(writer, 'POST', '/findings', { reportId: report.body.id, title: `F${i}`, severity: 'low' });
      ids.push(f.body.id);
    }
    const readerTarget = ids.pop()!;

    /** Runs `twelve`, reading one finding as the other user until they are done. */
    const underLoad = async (twelve: () => Array<Promise<{ status: number }>>) => {
      const started = performance.now();
      let done = false;
      const running = Promise.all(twelve()).finally(() => {
        done = true;
      });
      const reads: number[] = [];
      const statuses = new Set<number>();
      while (!done || reads.length === 0) {
        const t = performance.now();
        const res = await call(reader, 'GET', `/findings/${readerTarget}`);
        reads.push(performance.now() - t);
        statuses.add(res.status);
      }
      const results = await running;
      return {
        allMs: performance.now() - started,
        statuses: [...new Set(results.map((r) => r.status))].join('/'),
        readerStatuses: [...statuses].join('/'),
        reads,
      };
    };

    console.log('\n1. Saving 1,000,000 characters of each text (PATCH description)');
    console.log(
      `${'text'.padEnd(22)} ${'one save'.padStart(10)} ${'12 parallel'.padStart(12)} ` +
        `${'other user: reads, median, worst'.padStart(36)}`,
    );
    for (const [name, text] of Object.entries(PATHOLOGICAL_TEXTS)) {
      const t = performance.now();
      const one = await call(writer, 'PATCH', `/findings/${ids[0]}`, { description: text });
      const oneMs = performance.now() - t;
      const load = await underLoad(() =>
        ids.map((id) => call(writer, 'PATCH', `/findings/${id}`, { description: text })),
      );
      console.log(
        `${name.padEnd(22)} ${`${oneMs.toFixed(0)} ms`.padStart(10)} ${`${load.allMs.toFixed(0)} ms`.padStart(12)} ` +
          `${String(load.reads.length).padStart(6)}, ${median(load.reads).toFixed(0)} ms, ` +
          `${Math.max(...load.reads).toFixed(0)} ms  (saves ${one.status}/${load.statuses}, reads ${load.readerStatuses})`,
      );
    }

    console.log('\n2. Reading each Markdown file (importReportMarkdown, no database)');
    console.log(`${'file'.padEnd(38)} ${'250 KB'.padStart(8)} ${'1 MB'.padStart(8)} ${'ratio'.padStart(6)}  outcome`);
    for (const [name, { make }] of Object.entries(PATHOLOGICAL_MARKDOWN)) {
      const times: number[] = [];
      let outcome = '';
      for (const n of [250_000, 1_000_000]) {
        const text = make(n);
        const t = performance.now();
        try {
          const { document } = importReportMarkdown(text);
          outcome = `read, ${document.findings.length} findings`;
        } catch (err) {
          outcome = `refused: ${(err as Error).message.replace(/^line \d+, column \d+: /, '').slice(0, 50)}`;
        }
        times.push(performance.now() - t);
      }
      console.log(
        `${name.padEnd(38)} ${`${times[0]!.toFixed(0)} ms`.padStart(8)} ${`${times[1]!.toFixed(0)} ms`.padStart(8)} ` +
          `${(times[1]! / Math.max(times[0]!, 1)).toFixed(1).padStart(6)}  ${outcome}`,
      );
    }

    console.log('\n3. Twelve parallel API imports of 1 MB files (POST /reports/import-markdown)');
    for (const name of ['summary of <!--', 'YAML many keys, hand-written', 'many findings']) {
      const markdown = PATHOLOGICAL_MARKDOWN[name]!.make(1_000_000);
      const load = await underLoad(() =>
        Array.from({ length: PARALLEL }, () =>
          call(writer, 'POST', '/reports/import-markdown', { markdown, projectId: project.body.id }),
        ),
      );
      console.log(
        `${name.padEnd(30)} 12 imports ${load.allMs.toFixed(0)} ms (${load.statuses}); other user: ` +
          `${load.reads.length} reads, median ${median(load.reads).toFixed(0)} ms, worst ` +
          `${Math.max(...load.reads).toFixed(0)} ms (${load.readerStatuses})`,
      );
    }
  } finally {
    await svc.stop();
  }
}
