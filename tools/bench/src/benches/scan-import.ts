// End-to-end scanner import benchmark (issue "Scanner import"): a 4 MB Nessus file with 300 hosts
// through POST /rest/v1/reports/{id}/import-scan into an empty report, then the same file again
// into that report (the merge path). Target: under 1.5 s each on a 2-core machine.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiKeyRepository } from '@service/auth';
import { startBenchService } from '../support/bench-service.ts';
import { benchGenerator } from '../support/shared-bench.ts';

export default async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-import-'));
  const file = path.join(dir, 'scan.nessus');
  execFileSync('python3', [benchGenerator('gen_nessus.py'), '-o', file, '--hosts', '300', '--target-mb', '4'], {
    stdio: 'ignore',
  });
  const bytes = readFileSync(file);
  console.log(`Nessus file: ${(statSync(file).size / 1048576).toFixed(2)} MB, 300 hosts`);
  const svc = await startBenchService();
  try {
    const org = await svc.dbs.controlPlane('organizations').first();
    const user = await svc.dbs.controlPlane('users').where({ role: 'admin' }).first();
    // Why the client first: importing edits a report, so the key needs its client on the allow-list.
    const [seeded] = await svc.dbs.tenant('clients').insert({ name: 'Bench' }).returning('id');
    const { value: key } = await new ApiKeyRepository(svc.dbs.controlPlane).create({
      organizationId: org.id,
      userId: user.id,
      name: 'bench',
      scope: 'read-write',
      expiresAt: new Date(Date.now() + 86_400_000),
      clientIds: [seeded.id],
    });
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${svc.url}/rest/v1${p}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body instanceof FormData ? {} : { 'content-type': 'application/json' }),
        },
        body: body instanceof FormData ? body : JSON.stringify(body),
      });
      // The fields this benchmark reads: a created row's id, an import's counts.
      return { status: res.status, body: (await res.json()) as { id: string; created: number; merged: number } };
    };
    const project = await call('POST', '/projects', { clientId: seeded.id, name: 'Bench' });
    const importInto = async (reportId: string) => {
      const form = new FormData();
      form.set('file', new Blob([bytes]), 'scan.nessus');
      const started = performance.now();
      const res = await call('POST', `/reports/${reportId}/import-scan`, form);
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`import failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { ms, created: res.body.created, merged: res.body.merged };
    };
    // Warm-up on a throwaway report (module loading, JIT).
    await importInto((await call('POST', '/reports', { projectId: project.body.id, title: 'warm-up' })).body.id);
    const runs: Array<{ fresh: number; merge: number; created: number; merged: number }> = [];
    for (let i = 0; i < 3; i++) {
      const report = await call('POST', '/reports', { projectId: project.body.id, title: `run ${i}` });
      const fresh = await importInto(report.body.id);
      const merge = await importInto(report.body.id);
      runs.push({ fresh: fresh.ms, merge: merge.ms, created: fresh.created, merged: merge.merged });
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const occurrences = (
      await svc.dbs.tenant.raw(
        `select sum(jsonb_array_length(affected_assets))::int as n from findings f join ` +
          `report_findings rf on rf.finding_id = f.id join reports r on r.id = rf.report_id ` +
          `where r.title = 'run 0'`,
      )
    ).rows[0].n;
    console.log(
      `findings per import: ${runs[0]!.created} created, then ${runs[0]!.merged} ` +
        `merged; ${occurrences} affected assets stored`,
    );
    console.log(
      `into an empty report:         median ` +
        `${median(runs.map((r) => r.fresh)).toFixed(0)} ms (runs: ` +
        `${runs.map((r) => r.fresh.toFixed(0)).join(', ')}) target < 1500 ms`,
    );
    console.log(
      `again into the same report:   median ` +
        `${median(runs.map((r) => r.merge)).toFixed(0)} ms (runs: ` +
        `${runs.map((r) => r.merge.toFixed(0)).join(', ')}) target < 1500 ms`,
    );
  } finally {
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
