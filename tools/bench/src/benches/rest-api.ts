// REST pipeline benchmark (issues "Identity and access" and "The workspace over REST").
// Seeds a tenant with 20 clients, 200 projects, 1,000 reports and 50,000 findings, then measures
// with autocannon from a separate process:
//  1. authentication + rate limiting + licence + validation + logging overhead: the same
//     one-row query through the full pipeline and through a bare Koa route, one connection;
//  2. GET /rest/v1/findings?per_page=100&report_id=... and ?q=... with 16 connections, full
//     pipeline vs the same query on a bare Koa route with no middleware, and their ratio.
import Koa from 'koa';
import { ApiKeyRepository } from '@service/auth';
import { startBenchService } from '../support/bench-service.ts';
import { formatLoad, load, sequential } from '../support/load.ts';
import { seedWorkspace } from '../support/seed-workspace.ts';

export default async function run(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const svc = await startBenchService();
  try {
    const t = svc.dbs.tenant;
    const started = Date.now();
    const n = await seedWorkspace(t, { findingsPerReport: 50 });
    console.log(`seeded ${n} findings in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const org = await svc.dbs.controlPlane('organizations').first();
    const clientIds = (await t('clients').pluck('id')) as string[];
    const adminUser = await svc.dbs.controlPlane('users').where({ role: 'admin' }).first();
    const { value: key, key: apiKey } = await new ApiKeyRepository(svc.dbs.controlPlane).create({
      organizationId: org.id,
      userId: adminUser.id,
      name: 'bench',
      scope: 'read-write',
      expiresAt: new Date(Date.now() + 86_400_000),
      clientIds,
    });
    const report = await t('reports').orderBy('id').first();
    const auth = { authorization: `Bearer ${key}` };

    // The same queries on a bare Koa app: no request id, log, error mapper, rate limits, key
    // lookup, licence or validation; just the repository call and JSON.
    const principal = {
      keyId: apiKey.id,
      userId: adminUser.id,
      organizationId: org.id,
      role: 'admin' as const,
      scope: 'read-write' as const,
      allowedClientIds: clientIds,
      plan: 'business',
      tenantDatabase: 'default',
      tenant: t,
    };
    const bare = new Koa();
    bare.use(async (ctx) => {
      const perPage = Math.min(Number(ctx.query.per_page ?? 25), 100);
      const request = { q: ctx.query.q as string | undefined, offset: 0, limit: perPage };
      const { clients, findings } = svc.app.repositories;
      const page =
        ctx.path === '/clients'
          ? await clients.list(t, principal, { ...request, filters: {} }).then(({ rows, total }) => ({
              total,
              body: rows.map((row) => clients.present(row)),
            }))
          : await findings
              .list(t, principal, { ...request, filters: { report_id: ctx.query.report_id } })
              .then(({ rows, total }) => ({ total, body: rows.map((row) => findings.present(row)) }));
      ctx.set('X-Total-Count', String(page.total));
      ctx.body = page.body;
    });
    const bareServer = await svc.listen(bare);

    const warm = { connections: 4, seconds: 2, headers: auth };
    await load(`${svc.url}/rest/v1/findings?per_page=100&report_id=${report.id}`, warm);
    await load(`${bareServer.url}/findings?per_page=100&report_id=${report.id}`, warm);

    console.log('\n1. Pipeline overhead per request (GET one client, one request at a time)');
    await sequential(`${svc.url}/rest/v1/clients?per_page=1`, auth, 300);
    await sequential(`${bareServer.url}/clients?per_page=1`, {}, 300);
    const seqFull = await sequential(`${svc.url}/rest/v1/clients?per_page=1`, auth, 3000);
    const seqBare = await sequential(`${bareServer.url}/clients?per_page=1`, {}, 3000);
    console.log(
      `full pipeline: p50 ${seqFull.p50.toFixed(3)} ms, p99 ${seqFull.p99.toFixed(3)} ` +
        `ms; bare route: p50 ${seqBare.p50.toFixed(3)} ms, p99 ${seqBare.p99.toFixed(3)} ` +
        `ms`,
    );
    console.log(
      `added by authentication, rate limits, licence, validation and logging: p50 ` +
        `${(seqFull.p50 - seqBare.p50).toFixed(3)} ms, p99 ` +
        `${(seqFull.p99 - seqBare.p99).toFixed(3)} ms`,
    );
    const fullOne = await load(`${svc.url}/rest/v1/clients?per_page=1`, {
      connections: 1,
      seconds: Math.max(3, seconds / 2),
      headers: auth,
    });
    const bareOne = await load(`${bareServer.url}/clients?per_page=1`, {
      connections: 1,
      seconds: Math.max(3, seconds / 2),
    });
    console.log(formatLoad('full pipeline  /rest/v1/clients?per_page=1', fullOne));
    console.log(formatLoad('bare Koa route /clients?per_page=1', bareOne));

    console.log('\n2. Findings lists, 16 connections, 50,000 findings');
    for (const [label, query] of [
      ['report_id', `per_page=100&report_id=${report.id}`],
      ['q=CVE-2024-1007 (one match)', 'per_page=100&q=CVE-2024-1007'],
      ['q=injection (6,250 matches)', 'per_page=100&q=injection'],
    ] as const) {
      const full = await load(`${svc.url}/rest/v1/findings?${query}`, { connections: 16, seconds, headers: auth });
      const plain = await load(`${bareServer.url}/findings?${query}`, { connections: 16, seconds });
      console.log(formatLoad(`full pipeline  findings ${label}`, full));
      console.log(formatLoad(`bare Koa route findings ${label}`, plain));
      console.log(
        `throughput ratio full/bare: ` +
          `${((full.requestsPerSecond / plain.requestsPerSecond) * 100).toFixed(1)} % ` +
          `(target >= 70 %), p99 ${full.p99.toFixed(1)} ms (target < 50 ms)\n`,
      );
    }
  } finally {
    await svc.stop();
  }
}
