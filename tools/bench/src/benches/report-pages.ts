// Pages of a report's findings at any size (issue 21, item 1). Three reports of 1,000, 10,000 and
// 50,000 findings are imported as the Markdown import does (`MarkdownImportService.create`), and
// measured as they are right after the import (statistics refreshed by the import itself, no
// manual ANALYZE): GET /rest/v1/findings?report_id=... one request at a time (first page, a middle
// page, the last page), then with 16 connections, through the full pipeline and through a bare Koa
// route calling the same repository (the ratio says what the pipeline adds).
// Targets: a page at 50k within 2x of a page at 1k; p99 under 50 ms at 16 connections on 50k.
// BENCH_SECONDS (default 10) sets each load's duration.
import Koa from 'koa';
import { startBenchService, type BenchService } from '../support/bench-service.ts';
import { formatLoad, load, sequential } from '../support/load.ts';
import { lightReport } from '../support/light-report.ts';
import { seedProject } from '../support/seed-report.ts';

const SIZES = [1_000, 10_000, 50_000];
async function waitForStatistics(svc: BenchService): Promise<number> {
  const started = Date.now();
  for (;;) {
    const rows = (await svc.dbs
      .tenant('pg_stat_user_tables')
      .whereIn('relname', ['findings', 'report_findings'])
      .select('relname', 'n_mod_since_analyze')) as Array<{ relname: string; n_mod_since_analyze: string }>;
    if (rows.length === 2 && rows.every((r) => Number(r.n_mod_since_analyze) < 1000)) return Date.now() - started;
    if (Date.now() - started > 120_000) throw new Error('statistics were not refreshed within 2 minutes');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export default async function run(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const svc = await startBenchService();
  try {
    const t = svc.dbs.tenant;
    const { key, principal, projectId } = await seedProject(svc, { client: 'Bench', project: 'Bench' });

    const reports: Record<number, string> = {};
    for (const n of SIZES) {
      const started = Date.now();
      const result = await t.transaction((trx) =>
        svc.app.services.markdownImport.create(trx, principal, projectId, { document: lightReport(n), warnings: [] }),
      );
      reports[n] = result.reportId;
      const imported = Date.now() - started;
      console.log(
        `imported ${n} findings in ${(imported / 1000).toFixed(1)} s; statistics fresh ${await waitForStatistics(svc)} ms later`,
      );
    }

    const bare = new Koa();
    bare.use(async (ctx) => {
      const perPage = Math.min(Number(ctx.query.per_page ?? 25), 100);
      const page = Number(ctx.query.page ?? 1);
      const { findings } = svc.app.repositories;
      const { rows, total } = await findings.list(t, principal, {
        filters: { report_id: ctx.query.report_id },
        offset: (page - 1) * perPage,
        limit: perPage,
      });
      ctx.set('X-Total-Count', String(total));
      ctx.body = rows.map((row) => findings.present(row));
    });
    const bareServer = await svc.listen(bare);
    const auth = { authorization: `Bearer ${key}` };
    const full = (query: string) => `${svc.url}/rest/v1/findings?${query}`;
    const plain = (query: string) => `${bareServer.url}/findings?${query}`;

    await load(full(`report_id=${reports[50_000]}`), { connections: 4, seconds: 2, headers: auth });
    await load(plain(`report_id=${reports[50_000]}`), { connections: 4, seconds: 2 });

    console.log('\n1. One request at a time (p50 / p99 of 300 requests, full pipeline)');
    const firstPage: Record<number, number> = {};
    for (const perPage of [25, 100]) {
      for (const n of SIZES) {
        const pages = Math.ceil(n / perPage);
        const row: string[] = [];
        for (const [label, page] of [
          ['first', 1],
          ['middle', Math.ceil(pages / 2)],
          ['last', pages],
        ] as const) {
          const url = full(`report_id=${reports[n]}&per_page=${perPage}&page=${page}`);
          await sequential(url, auth, 30);
          const r = await sequential(url, auth, 300);
          if (label === 'first' && perPage === 25) firstPage[n] = r.p50;
          row.push(`${label} ${r.p50.toFixed(2)} / ${r.p99.toFixed(2)} ms`);
        }
        console.log(`${String(n).padStart(6)} findings, per_page=${String(perPage).padEnd(3)}  ${row.join('   ')}`);
      }
    }
    console.log(
      `first page at 50k / at 1k: ${(firstPage[50_000]! / firstPage[1_000]!).toFixed(2)}x (target <= 2x); ` +
        `at 10k / at 1k: ${(firstPage[10_000]! / firstPage[1_000]!).toFixed(2)}x`,
    );

    console.log('\n2. 16 connections, first page (per_page=25 and 100), full pipeline and bare route');
    for (const perPage of [25, 100]) {
      for (const n of SIZES) {
        const query = `report_id=${reports[n]}&per_page=${perPage}`;
        const f = await load(full(query), { connections: 16, seconds, headers: auth });
        const b = await load(plain(query), { connections: 16, seconds });
        console.log(formatLoad(`full  ${n} findings per_page=${perPage}`, f));
        console.log(formatLoad(`bare  ${n} findings per_page=${perPage}`, b));
        console.log(
          `  full/bare throughput ${((f.requestsPerSecond / b.requestsPerSecond) * 100).toFixed(1)} %` +
            (n === 50_000 ? `, p99 ${f.p99.toFixed(1)} ms (target < 50 ms)` : ''),
        );
      }
    }
  } finally {
    await svc.stop();
  }
}
